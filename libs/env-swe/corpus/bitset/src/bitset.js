'use strict'

function createBitSet(size) {
  if (!Number.isInteger(size) || size < 0) throw new RangeError('size must be a non-negative integer')
  return { size, words: new Uint32Array(Math.ceil(size / 32)) }
}

function check(set, i) {
  if (!Number.isInteger(i) || i < 0 || i >= set.size) throw new RangeError('index out of range: ' + i)
}

function add(set, i) {
  check(set, i)
  set.words[i >>> 5] |= 1 << (i & 31)
  return set
}

function has(set, i) {
  check(set, i)
  return (set.words[i >>> 5] & (1 << (i & 31))) !== 0
}

function del(set, i) {
  check(set, i)
  set.words[i >>> 5] &= ~(1 << (i & 31))
  return set
}

function popcount32(x) {
  let n = 0
  let v = x >>> 0
  while (v !== 0) {
    v &= v - 1
    n += 1
  }
  return n
}

function count(set) {
  let n = 0
  for (const w of set.words) n += popcount32(w)
  return n
}

function toArray(set) {
  const out = []
  for (let i = 0; i < set.size; i++) {
    if (has(set, i)) out.push(i)
  }
  return out
}

function union(a, b) {
  if (a.size !== b.size) throw new RangeError('sizes differ')
  const out = createBitSet(a.size)
  for (let w = 0; w < a.words.length; w++) out.words[w] = a.words[w] | b.words[w]
  return out
}

module.exports = { createBitSet, add, has, del, count, toArray, union, popcount32 }
