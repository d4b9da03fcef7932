'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const b = require('../src/bucket.js')

test('starts full', () => {
  const bucket = b.createBucket(3, 1, 0)
  assert.equal(b.tryTake(bucket, 0), true)
  assert.equal(b.tryTake(bucket, 0), true)
  assert.equal(b.tryTake(bucket, 0), true)
  assert.equal(b.tryTake(bucket, 0), false)
})

test('refills over time up to capacity', () => {
  const bucket = b.createBucket(2, 2, 0)
  b.tryTake(bucket, 0, 2)
  assert.equal(b.refill(bucket, 500), 1)
  assert.equal(b.refill(bucket, 10000), 2)
})

test('takes a cost of several tokens', () => {
  const bucket = b.createBucket(5, 1, 0)
  assert.equal(b.tryTake(bucket, 0, 5), true)
  assert.equal(b.tryTake(bucket, 1000, 2), false)
  assert.equal(b.tryTake(bucket, 2000, 2), true)
})

test('computes the wait time', () => {
  const bucket = b.createBucket(4, 2, 0)
  b.tryTake(bucket, 0, 4)
  assert.equal(b.waitTime(bucket, 0, 1), 500)
  assert.equal(b.waitTime(bucket, 0, 3), 1500)
  assert.equal(b.waitTime(bucket, 2000, 3), 0)
  assert.equal(b.waitTime(bucket, 2000, 5), Infinity)
})

test('a zero rate never refills', () => {
  const bucket = b.createBucket(1, 0, 0)
  b.tryTake(bucket, 0)
  assert.equal(b.waitTime(bucket, 100000), Infinity)
})

test('validates arguments and the clock', () => {
  assert.throws(() => b.createBucket(0, 1, 0), RangeError)
  assert.throws(() => b.createBucket(1, -1, 0), RangeError)
  const bucket = b.createBucket(1, 1, 1000)
  assert.throws(() => b.refill(bucket, 999), /backwards/)
})
