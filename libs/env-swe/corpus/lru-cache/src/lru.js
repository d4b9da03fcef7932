'use strict'

const { createList, pushFront, unlink, popBack, toArray } = require('./list.js')

function createCache(capacity) {
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive integer')
  return { capacity, map: new Map(), list: createList(), hits: 0, misses: 0 }
}

function get(cache, key) {
  const node = cache.map.get(key)
  if (node === undefined) {
    cache.misses += 1
    return undefined
  }
  cache.hits += 1
  unlink(cache.list, node)
  pushFront(cache.list, node)
  return node.value
}

function set(cache, key, value) {
  const existing = cache.map.get(key)
  if (existing !== undefined) {
    existing.value = value
    unlink(cache.list, existing)
    pushFront(cache.list, existing)
    return cache
  }
  if (cache.map.size >= cache.capacity) {
    const evicted = popBack(cache.list)
    cache.map.delete(evicted.key)
  }
  const node = { key, value, prev: null, next: null }
  cache.map.set(key, pushFront(cache.list, node))
  return cache
}

function remove(cache, key) {
  const node = cache.map.get(key)
  if (node === undefined) return false
  unlink(cache.list, node)
  cache.map.delete(key)
  return true
}

function keys(cache) {
  return toArray(cache.list)
}

function hitRate(cache) {
  const total = cache.hits + cache.misses
  if (total === 0) return 0
  return cache.hits / total
}

module.exports = { createCache, get, set, remove, keys, hitRate }
