'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const { tokenize, isDigit } = require('../src/tokenizer.js')
const { evaluate, apply } = require('../src/evaluate.js')

test('tokenizes numbers, operators and parentheses', () => {
  assert.deepEqual(tokenize('12+(3)'), [
    { type: 'num', value: 12 },
    { type: 'op', value: '+' },
    { type: 'paren', value: '(' },
    { type: 'num', value: 3 },
    { type: 'paren', value: ')' }
  ])
})

test('skips whitespace', () => {
  assert.deepEqual(tokenize(' 7 \t* 8 ').map((t) => t.value), [7, '*', 8])
})

test('rejects unknown characters', () => {
  assert.throws(() => tokenize('1 + x'), /unexpected character x at 4/)
})

test('recognises digits only', () => {
  assert.equal(isDigit('0'), true)
  assert.equal(isDigit('9'), true)
  assert.equal(isDigit('a'), false)
  assert.equal(isDigit(undefined), false)
})

test('respects precedence', () => {
  assert.equal(evaluate('2 + 3 * 4'), 14)
  assert.equal(evaluate('10 - 4 - 3'), 3)
  assert.equal(evaluate('20 / 2 / 5'), 2)
})

test('evaluates parentheses and unary minus', () => {
  assert.equal(evaluate('(2 + 3) * 4'), 20)
  assert.equal(evaluate('-3 + 5'), 2)
  assert.equal(evaluate('2 * (1 - 4)'), -6)
})

test('powers are right associative', () => {
  assert.equal(evaluate('2 ^ 3 ^ 2'), 512)
  assert.equal(evaluate('2 * 3 ^ 2'), 18)
})

test('integer division truncates and checks for zero', () => {
  assert.equal(evaluate('7 / 2'), 3)
  assert.equal(evaluate('17 % 5'), 2)
  assert.throws(() => evaluate('1 / 0'), RangeError)
  assert.equal(apply('-', 5, 2), 3)
})

test('reports syntax errors', () => {
  assert.throws(() => evaluate('(1 + 2'), SyntaxError)
  assert.throws(() => evaluate('1 +'), SyntaxError)
  assert.throws(() => evaluate('1 2'), SyntaxError)
})
