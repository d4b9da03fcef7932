'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const s = require('../src/search.js')

const arr = [1, 3, 3, 3, 5, 8]

test('lower bound', () => {
  assert.equal(s.lowerBound(arr, 3), 1)
  assert.equal(s.lowerBound(arr, 4), 4)
  assert.equal(s.lowerBound(arr, 0), 0)
  assert.equal(s.lowerBound(arr, 9), 6)
})

test('upper bound', () => {
  assert.equal(s.upperBound(arr, 3), 4)
  assert.equal(s.upperBound(arr, 8), 6)
  assert.equal(s.upperBound(arr, 0), 0)
})

test('finds an index or -1', () => {
  assert.equal(s.indexOf(arr, 5), 4)
  assert.equal(s.indexOf(arr, 1), 0)
  assert.equal(s.indexOf(arr, 4), -1)
  assert.equal(s.indexOf([], 4), -1)
})

test('counts occurrences', () => {
  assert.equal(s.count(arr, 3), 3)
  assert.equal(s.count(arr, 2), 0)
})

test('inserts keeping order', () => {
  assert.deepEqual(s.insertSorted(arr, 4), [1, 3, 3, 3, 4, 5, 8])
  assert.deepEqual(s.insertSorted([], 1), [1])
  assert.deepEqual(arr, [1, 3, 3, 3, 5, 8])
})

test('counts values in a closed range', () => {
  assert.equal(s.rangeCount(arr, 3, 5), 4)
  assert.equal(s.rangeCount(arr, 6, 7), 0)
  assert.equal(s.rangeCount(arr, 5, 3), 0)
  assert.equal(s.rangeCount(arr, 1, 8), 6)
})
