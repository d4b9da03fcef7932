'use strict'

const DIGITS = '0123456789'
const OPERATORS = '+-*/%^'

function isDigit(ch) {
  return ch !== undefined && DIGITS.includes(ch)
}

// Turns '12 + 3*(4-1)' into [{ type: 'num', value: 12 }, { type: 'op', value: '+' }, ...].
function tokenize(text) {
  const tokens = []
  let i = 0
  while (i < text.length) {
    const ch = text[i]
    if (ch === ' ' || ch === '\t') {
      i += 1
      continue
    }
    if (isDigit(ch)) {
      let j = i
      while (j < text.length && isDigit(text[j])) j += 1
      tokens.push({ type: 'num', value: Number(text.slice(i, j)) })
      i = j
      continue
    }
    if (OPERATORS.includes(ch)) {
      tokens.push({ type: 'op', value: ch })
    } else if (ch === '(' || ch === ')') {
      tokens.push({ type: 'paren', value: ch })
    } else {
      throw new SyntaxError('unexpected character ' + ch + ' at ' + i)
    }
    i += 1
  }
  return tokens
}

module.exports = { isDigit, tokenize }
