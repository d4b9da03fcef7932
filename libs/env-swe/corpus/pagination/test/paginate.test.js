'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const p = require('../src/paginate.js')

test('counts pages', () => {
  assert.equal(p.pageCount(10, 5), 2)
  assert.equal(p.pageCount(11, 5), 3)
  assert.equal(p.pageCount(0, 5), 1)
  assert.throws(() => p.pageCount(10, 0), RangeError)
})

test('clamps page numbers', () => {
  assert.equal(p.clampPage(0, 10, 5), 1)
  assert.equal(p.clampPage(3, 10, 5), 2)
  assert.equal(p.clampPage(2, 10, 5), 2)
})

test('slices a page', () => {
  const items = ['a', 'b', 'c', 'd', 'e']
  assert.deepEqual(p.pageItems(items, 1, 2), ['a', 'b'])
  assert.deepEqual(p.pageItems(items, 3, 2), ['e'])
  assert.deepEqual(p.pageItems(items, 9, 2), ['e'])
})

test('centres the page window', () => {
  assert.deepEqual(p.pageWindow(5, 10, 5), [3, 4, 5, 6, 7])
  assert.deepEqual(p.pageWindow(1, 10, 5), [1, 2, 3, 4, 5])
  assert.deepEqual(p.pageWindow(10, 10, 5), [6, 7, 8, 9, 10])
  assert.deepEqual(p.pageWindow(2, 3, 5), [1, 2, 3])
})

test('describes the visible range', () => {
  assert.equal(p.describe(1, 12, 5), '1-5 of 12')
  assert.equal(p.describe(3, 12, 5), '11-12 of 12')
  assert.equal(p.describe(1, 0, 5), 'no items')
})
