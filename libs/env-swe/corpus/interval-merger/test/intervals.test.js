'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const iv = require('../src/intervals.js')

test('normalizes reversed intervals', () => {
  assert.deepEqual(iv.normalize([5, 2]), [2, 5])
  assert.deepEqual(iv.normalize([2, 5]), [2, 5])
})

test('detects overlap including shared endpoints', () => {
  assert.equal(iv.overlaps([1, 3], [3, 5]), true)
  assert.equal(iv.overlaps([1, 3], [4, 5]), false)
  assert.equal(iv.overlaps([4, 9], [1, 5]), true)
})

test('merges overlapping and adjacent intervals', () => {
  assert.deepEqual(iv.merge([[8, 10], [1, 3], [2, 6], [7, 7], [15, 18]]), [[1, 10], [15, 18]])
})

test('keeps disjoint intervals apart', () => {
  assert.deepEqual(iv.merge([[1, 2], [4, 5]]), [[1, 2], [4, 5]])
})

test('merges a contained interval', () => {
  assert.deepEqual(iv.merge([[1, 10], [2, 3]]), [[1, 10]])
})

test('inserts into a sorted list', () => {
  assert.deepEqual(iv.insert([[1, 2], [6, 9]], [3, 5]), [[1, 9]])
  assert.deepEqual(iv.insert([[1, 2]], [10, 11]), [[1, 2], [10, 11]])
})

test('measures the total covered length', () => {
  assert.equal(iv.totalLength([[1, 3], [2, 4], [10, 10]]), 5)
  assert.equal(iv.totalLength([]), 0)
})

test('checks membership at both ends', () => {
  const list = [[1, 3], [7, 9]]
  assert.equal(iv.contains(list, 1), true)
  assert.equal(iv.contains(list, 9), true)
  assert.equal(iv.contains(list, 5), false)
  assert.equal(iv.contains(list, 10), false)
})

test('finds the gaps in a window', () => {
  assert.deepEqual(iv.gaps([[3, 4], [8, 9]], 1, 10), [[1, 2], [5, 7], [10, 10]])
  assert.deepEqual(iv.gaps([[0, 20]], 1, 10), [])
  assert.deepEqual(iv.gaps([], 1, 3), [[1, 3]])
})
