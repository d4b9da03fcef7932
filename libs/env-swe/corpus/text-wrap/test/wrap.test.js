'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const w = require('../src/wrap.js')

test('splits words on any number of spaces', () => {
  assert.deepEqual(w.words('  a  bb c '), ['a', 'bb', 'c'])
})

test('wraps greedily at the width', () => {
  assert.deepEqual(w.wrap('the quick brown fox jumps', 10), ['the quick', 'brown fox', 'jumps'])
})

test('a word that fits exactly stays on the line', () => {
  assert.deepEqual(w.wrap('abcd efghi', 10), ['abcd efghi'])
  assert.deepEqual(w.wrap('abcd efghij', 10), ['abcd', 'efghij'])
})

test('splits words longer than the width', () => {
  assert.deepEqual(w.wrap('a abcdefghij b', 4), ['a', 'abcd', 'efgh', 'ij b'])
})

test('rejects a zero width', () => {
  assert.throws(() => w.wrap('x', 0), RangeError)
  assert.deepEqual(w.wrap('x y', 1), ['x', 'y'])
})

test('wraps empty text to no lines', () => {
  assert.deepEqual(w.wrap('   ', 5), [])
})

test('truncates with an ellipsis', () => {
  assert.equal(w.truncate('hello world', 8), 'hello...')
  assert.equal(w.truncate('hello', 5), 'hello')
  assert.equal(w.truncate('hello', 2), 'he')
})

test('pads and centers', () => {
  assert.equal(w.padRight('ab', 4), 'ab  ')
  assert.equal(w.padRight('abcdef', 4), 'abcdef')
  assert.equal(w.center('ab', 7), '  ab   ')
  assert.equal(w.center('abc', 3), 'abc')
})
