'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const v = require('../src/version.js')
const r = require('../src/range.js')

test('parses versions with a v prefix and prerelease', () => {
  assert.deepEqual(v.parse('v1.2.3-beta.2'), { major: 1, minor: 2, patch: 3, pre: ['beta', '2'] })
  assert.throws(() => v.parse('1.2'), SyntaxError)
  assert.throws(() => v.parse('1.-2.3'), SyntaxError)
})

test('compares by major, minor, patch', () => {
  assert.equal(v.compare('1.2.3', '1.2.4'), -1)
  assert.equal(v.compare('1.10.0', '1.9.9'), 1)
  assert.equal(v.compare('2.0.0', '10.0.0'), -1)
  assert.equal(v.compare('1.2.3', '1.2.3'), 0)
})

test('a prerelease sorts before its release', () => {
  assert.equal(v.compare('1.0.0-alpha', '1.0.0'), -1)
  assert.equal(v.compare('1.0.0', '1.0.0-rc.1'), 1)
  assert.equal(v.compare('1.0.0-alpha.2', '1.0.0-alpha.10'), -1)
  assert.equal(v.compare('1.0.0-alpha', '1.0.0-beta'), -1)
  assert.equal(v.compare('1.0.0-alpha', '1.0.0-alpha.1'), -1)
})

test('formats back to text', () => {
  assert.equal(v.format(v.parse('3.4.5-x.1')), '3.4.5-x.1')
  assert.equal(v.format(v.parse('3.4.5')), '3.4.5')
})

test('caret ranges', () => {
  assert.equal(r.satisfies('1.9.0', '^1.2.3'), true)
  assert.equal(r.satisfies('2.0.0', '^1.2.3'), false)
  assert.equal(r.satisfies('1.2.2', '^1.2.3'), false)
  assert.equal(r.satisfies('0.2.9', '^0.2.3'), true)
  assert.equal(r.satisfies('0.3.0', '^0.2.3'), false)
  assert.equal(r.satisfies('0.0.4', '^0.0.3'), false)
})

test('tilde and exact ranges', () => {
  assert.equal(r.satisfies('1.2.9', '~1.2.3'), true)
  assert.equal(r.satisfies('1.3.0', '~1.2.3'), false)
  assert.equal(r.satisfies('1.2.3', '1.2.3'), true)
  assert.equal(r.satisfies('1.2.4', '1.2.3'), false)
})

test('picks the highest satisfying version', () => {
  assert.equal(r.maxSatisfying(['1.2.3', '1.4.0', '2.0.0', '1.3.9'], '^1.2.0'), '1.4.0')
  assert.equal(r.maxSatisfying(['3.0.0'], '^1.0.0'), null)
})

test('sorts versions', () => {
  assert.deepEqual(r.sortVersions(['1.10.0', '1.2.0', '1.2.0-rc.1', '0.9.9']), ['0.9.9', '1.2.0-rc.1', '1.2.0', '1.10.0'])
})
