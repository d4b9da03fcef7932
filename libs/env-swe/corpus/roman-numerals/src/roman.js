'use strict'

const TABLE = [
  [1000, 'M'], [900, 'CM'], [500, 'D'], [400, 'CD'],
  [100, 'C'], [90, 'XC'], [50, 'L'], [40, 'XL'],
  [10, 'X'], [9, 'IX'], [5, 'V'], [4, 'IV'], [1, 'I']
]

const VALUES = { I: 1, V: 5, X: 10, L: 50, C: 100, D: 500, M: 1000 }

function toRoman(n) {
  if (!Number.isInteger(n) || n < 1 || n > 3999) throw new RangeError('out of range: ' + n)
  let rest = n
  let out = ''
  for (const [value, symbol] of TABLE) {
    while (rest >= value) {
      out += symbol
      rest -= value
    }
  }
  return out
}

function fromRoman(text) {
  let total = 0
  for (let i = 0; i < text.length; i++) {
    const value = VALUES[text[i]]
    if (value === undefined) throw new SyntaxError('not a roman digit: ' + text[i])
    const next = VALUES[text[i + 1]]
    if (next !== undefined && value < next) total -= value
    else total += value
  }
  return total
}

function isCanonical(text) {
  try {
    return toRoman(fromRoman(text)) === text
  } catch (e) {
    return false
  }
}

module.exports = { toRoman, fromRoman, isCanonical }
