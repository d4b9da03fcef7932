'use strict'

const { tokenize } = require('./tokenizer.js')

const PRECEDENCE = { '+': 1, '-': 1, '*': 2, '/': 2, '%': 2, '^': 3 }

function apply(op, left, right) {
  switch (op) {
    case '+': return left + right
    case '-': return left - right
    case '*': return left * right
    case '/':
      if (right === 0) throw new RangeError('division by zero')
      return Math.trunc(left / right)
    case '%': return left % right
    case '^': return Math.pow(left, right)
  }
  throw new Error('unknown operator ' + op)
}

function parser(tokens) {
  let pos = 0
  function peek() {
    return tokens[pos]
  }
  function primary() {
    const token = tokens[pos]
    if (token === undefined) throw new SyntaxError('unexpected end of input')
    pos += 1
    if (token.type === 'num') return token.value
    if (token.type === 'op' && token.value === '-') return -primary()
    if (token.type === 'paren' && token.value === '(') {
      const value = expression(1)
      const close = tokens[pos]
      if (close === undefined || close.value !== ')') throw new SyntaxError('expected )')
      pos += 1
      return value
    }
    throw new SyntaxError('unexpected token ' + token.value)
  }
  function expression(minPrecedence) {
    let left = primary()
    for (;;) {
      const token = peek()
      if (token === undefined || token.type !== 'op') break
      const prec = PRECEDENCE[token.value]
      if (prec < minPrecedence) break
      pos += 1
      const rightAssoc = token.value === '^'
      const right = expression(rightAssoc ? prec : prec + 1)
      left = apply(token.value, left, right)
    }
    return left
  }
  return { expression, done: () => pos >= tokens.length }
}

function evaluate(text) {
  const p = parser(tokenize(text))
  const value = p.expression(1)
  if (!p.done()) throw new SyntaxError('trailing input')
  return value
}

module.exports = { apply, evaluate }
