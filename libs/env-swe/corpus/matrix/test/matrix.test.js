'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const m = require('../src/matrix.js')

test('reports shapes', () => {
  assert.deepEqual(m.shape([[1, 2, 3], [4, 5, 6]]), [2, 3])
  assert.deepEqual(m.shape([]), [0, 0])
})

test('builds zeros and identity', () => {
  assert.deepEqual(m.zeros(2, 3), [[0, 0, 0], [0, 0, 0]])
  assert.deepEqual(m.identity(3), [[1, 0, 0], [0, 1, 0], [0, 0, 1]])
})

test('transposes a rectangle', () => {
  assert.deepEqual(m.transpose([[1, 2, 3], [4, 5, 6]]), [[1, 4], [2, 5], [3, 6]])
})

test('multiplies compatible matrices', () => {
  assert.deepEqual(m.multiply([[1, 2], [3, 4]], [[5, 6], [7, 8]]), [[19, 22], [43, 50]])
  assert.deepEqual(m.multiply([[1, 2, 3]], [[1], [2], [3]]), [[14]])
  assert.deepEqual(m.multiply([[2, 0], [1, 3]], m.identity(2)), [[2, 0], [1, 3]])
})

test('rejects incompatible shapes', () => {
  assert.throws(() => m.multiply([[1, 2]], [[1, 2]]), /shape mismatch: 1x2 times 1x2/)
})

test('removes a row and a column', () => {
  assert.deepEqual(m.minor([[1, 2, 3], [4, 5, 6], [7, 8, 9]], 1, 0), [[2, 3], [8, 9]])
})

test('computes determinants', () => {
  assert.equal(m.determinant([[4]]), 4)
  assert.equal(m.determinant([[1, 2], [3, 4]]), -2)
  assert.equal(m.determinant([[2, 0, 1], [1, 3, 2], [1, 1, 2]]), 6)
  assert.equal(m.determinant([[1, 2, 3, 4], [5, 6, 7, 8], [2, 6, 4, 8], [3, 1, 1, 2]]), 72)
  assert.throws(() => m.determinant([[1, 2]]), RangeError)
})

test('sums the diagonal', () => {
  assert.equal(m.trace([[1, 9], [9, 5]]), 6)
})
