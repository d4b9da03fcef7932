'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const b = require('../src/bitset.js')

test('allocates enough words', () => {
  assert.equal(b.createBitSet(0).words.length, 0)
  assert.equal(b.createBitSet(32).words.length, 1)
  assert.equal(b.createBitSet(33).words.length, 2)
  assert.throws(() => b.createBitSet(-1), RangeError)
})

test('adds and tests bits across words', () => {
  const s = b.createBitSet(100)
  b.add(s, 0)
  b.add(s, 31)
  b.add(s, 32)
  b.add(s, 99)
  assert.deepEqual(b.toArray(s), [0, 31, 32, 99])
  assert.equal(b.has(s, 1), false)
})

test('deletes bits', () => {
  const s = b.createBitSet(40)
  b.add(s, 5)
  b.add(s, 6)
  b.del(s, 5)
  assert.deepEqual(b.toArray(s), [6])
})

test('rejects indices out of range', () => {
  const s = b.createBitSet(10)
  assert.throws(() => b.add(s, 10), RangeError)
  assert.throws(() => b.has(s, -1), RangeError)
  assert.doesNotThrow(() => b.add(s, 9))
})

test('counts set bits', () => {
  assert.equal(b.popcount32(0xffffffff), 32)
  assert.equal(b.popcount32(0b1011), 3)
  const s = b.createBitSet(70)
  for (const i of [1, 2, 40, 69]) b.add(s, i)
  assert.equal(b.count(s), 4)
})

test('unions equal-size sets', () => {
  const x = b.add(b.createBitSet(40), 3)
  const y = b.add(b.createBitSet(40), 35)
  assert.deepEqual(b.toArray(b.union(x, y)), [3, 35])
  assert.throws(() => b.union(x, b.createBitSet(41)), RangeError)
})
