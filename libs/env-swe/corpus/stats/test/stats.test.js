'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const s = require('../src/stats.js')

test('sums and averages', () => {
  assert.equal(s.sum([1, 2, 3]), 6)
  assert.equal(s.mean([1, 2, 3, 4]), 2.5)
  assert.throws(() => s.mean([]), RangeError)
})

test('median of odd and even lengths', () => {
  assert.equal(s.median([5, 1, 3]), 3)
  assert.equal(s.median([4, 1, 3, 2]), 2.5)
  assert.equal(s.median([7]), 7)
  assert.throws(() => s.median([]), RangeError)
})

test('percentiles interpolate', () => {
  const xs = [10, 20, 30, 40, 50]
  assert.equal(s.percentile(xs, 0), 10)
  assert.equal(s.percentile(xs, 100), 50)
  assert.equal(s.percentile(xs, 50), 30)
  assert.equal(s.percentile(xs, 90), 46)
  assert.equal(s.percentile([1, 2], 25), 1.25)
  assert.throws(() => s.percentile(xs, 101), RangeError)
})

test('sample variance', () => {
  assert.equal(s.variance([2, 4, 4, 4, 5, 5, 7, 9]), 32 / 7)
  assert.equal(s.variance([1]), 0)
  assert.equal(s.variance([1, 3]), 2)
})

test('histograms count into equal bins', () => {
  assert.deepEqual(s.histogram([0, 1, 2, 3, 4, 5, 9.9, 10, 11, -1], 0, 10, 5), [2, 2, 2, 0, 2])
})

test('does not reorder its input', () => {
  const xs = [3, 1, 2]
  s.median(xs)
  s.percentile(xs, 50)
  assert.deepEqual(xs, [3, 1, 2])
})
