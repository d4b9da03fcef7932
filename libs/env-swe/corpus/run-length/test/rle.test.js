'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const rle = require('../src/rle.js')

test('groups runs', () => {
  assert.deepEqual(rle.runs('aaabcc'), [['a', 3], ['b', 1], ['c', 2]])
  assert.deepEqual(rle.runs([1, 1, 2]), [[1, 2], [2, 1]])
  assert.deepEqual(rle.runs(''), [])
})

test('encodes with counts only for repeats', () => {
  assert.equal(rle.encode('aaabcc'), '3ab2c')
  assert.equal(rle.encode('abc'), 'abc')
  assert.equal(rle.encode('zzzzzzzzzzzz'), '12z')
})

test('decodes multi-digit counts', () => {
  assert.equal(rle.decode('3ab2c'), 'aaabcc')
  assert.equal(rle.decode('12z'), 'zzzzzzzzzzzz')
  assert.throws(() => rle.decode('ab3'), SyntaxError)
})

test('round-trips', () => {
  for (const s of ['', 'a', 'aabbbbcccccccccccd', 'xyz']) assert.equal(rle.decode(rle.encode(s)), s)
})

test('expands pairs', () => {
  assert.deepEqual(rle.expand([['x', 2], ['y', 1]]), ['x', 'x', 'y'])
  assert.throws(() => rle.expand([['x', 0]]), RangeError)
})

test('finds the first longest run', () => {
  assert.deepEqual(rle.longestRun('abbcccdd'), ['c', 3])
  assert.deepEqual(rle.longestRun('aabb'), ['a', 2])
  assert.equal(rle.longestRun(''), null)
})
