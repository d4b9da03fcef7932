'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const lru = require('../src/lru.js')
const list = require('../src/list.js')

test('stores and returns values', () => {
  const c = lru.createCache(2)
  lru.set(c, 'a', 1)
  assert.equal(lru.get(c, 'a'), 1)
  assert.equal(lru.get(c, 'b'), undefined)
})

test('evicts the least recently used key', () => {
  const c = lru.createCache(2)
  lru.set(c, 'a', 1)
  lru.set(c, 'b', 2)
  lru.get(c, 'a')
  lru.set(c, 'c', 3)
  assert.deepEqual(lru.keys(c), ['c', 'a'])
  assert.equal(lru.get(c, 'b'), undefined)
})

test('keeps exactly capacity entries', () => {
  const c = lru.createCache(3)
  for (let i = 0; i < 10; i++) lru.set(c, i, i * i)
  assert.equal(c.map.size, 3)
  assert.deepEqual(lru.keys(c), [9, 8, 7])
})

test('updating a key refreshes it without growing', () => {
  const c = lru.createCache(2)
  lru.set(c, 'a', 1)
  lru.set(c, 'b', 2)
  lru.set(c, 'a', 10)
  assert.deepEqual(lru.keys(c), ['a', 'b'])
  assert.equal(lru.get(c, 'a'), 10)
  assert.equal(c.list.size, 2)
})

test('removes keys', () => {
  const c = lru.createCache(2)
  lru.set(c, 'a', 1)
  assert.equal(lru.remove(c, 'a'), true)
  assert.equal(lru.remove(c, 'a'), false)
  assert.deepEqual(lru.keys(c), [])
})

test('rejects a bad capacity', () => {
  assert.throws(() => lru.createCache(0), RangeError)
  assert.throws(() => lru.createCache(1.5), RangeError)
  assert.doesNotThrow(() => lru.createCache(1))
})

test('reports the hit rate', () => {
  const c = lru.createCache(2)
  assert.equal(lru.hitRate(c), 0)
  lru.set(c, 'a', 1)
  lru.get(c, 'a')
  lru.get(c, 'a')
  lru.get(c, 'x')
  assert.equal(lru.hitRate(c), 2 / 3)
})

test('the list unlinks head, middle and tail', () => {
  const l = list.createList()
  const a = list.pushFront(l, { key: 'a' })
  const b = list.pushFront(l, { key: 'b' })
  const c = list.pushFront(l, { key: 'c' })
  list.unlink(l, b)
  assert.deepEqual(list.toArray(l), ['c', 'a'])
  list.unlink(l, c)
  assert.deepEqual(list.toArray(l), ['a'])
  assert.equal(l.tail, a)
  assert.equal(list.popBack(l).key, 'a')
  assert.equal(list.popBack(l), null)
  assert.equal(l.size, 0)
  assert.equal(l.head, null)
})
