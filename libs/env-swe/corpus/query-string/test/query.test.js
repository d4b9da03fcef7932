'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const q = require('../src/query.js')

test('parses pairs and strips the question mark', () => {
  assert.deepEqual(q.parse('?a=1&b=two'), { a: '1', b: 'two' })
})

test('collects repeated keys into arrays', () => {
  assert.deepEqual(q.parse('a=1&a=2&a=3'), { a: ['1', '2', '3'] })
})

test('decodes plus signs and percent escapes', () => {
  assert.deepEqual(q.parse('q=hello+world&x=%3D%26'), { q: 'hello world', x: '=&' })
})

test('keys without values and empty segments', () => {
  assert.deepEqual(q.parse('flag&&b='), { flag: '', b: '' })
  assert.deepEqual(q.parse(''), {})
})

test('keeps = signs inside values', () => {
  assert.deepEqual(q.parse('expr=a=b'), { expr: 'a=b' })
})

test('stringifies sorted and encoded', () => {
  assert.equal(q.stringify({ b: 'x y', a: ['1', '2'], c: undefined }), 'a=1&a=2&b=x%20y')
})

test('round-trips', () => {
  const params = { name: 'Zoë & co', tags: ['a', 'b'] }
  assert.deepEqual(q.parse(q.stringify(params)), params)
})

test('reads integers with a fallback', () => {
  const p = q.parse('page=3&size=abc')
  assert.equal(q.getInt(p, 'page', 1), 3)
  assert.equal(q.getInt(p, 'size', 10), 10)
  assert.equal(q.getInt(p, 'missing', 7), 7)
  assert.deepEqual(q.getAll(p, 'missing'), [])
})
