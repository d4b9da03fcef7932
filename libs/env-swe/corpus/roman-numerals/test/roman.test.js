'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const r = require('../src/roman.js')

test('writes simple numbers', () => {
  assert.equal(r.toRoman(3), 'III')
  assert.equal(r.toRoman(8), 'VIII')
  assert.equal(r.toRoman(1), 'I')
})

test('writes subtractive forms', () => {
  assert.equal(r.toRoman(4), 'IV')
  assert.equal(r.toRoman(9), 'IX')
  assert.equal(r.toRoman(40), 'XL')
  assert.equal(r.toRoman(1994), 'MCMXCIV')
  assert.equal(r.toRoman(3999), 'MMMCMXCIX')
})

test('rejects out of range numbers', () => {
  assert.throws(() => r.toRoman(0), RangeError)
  assert.throws(() => r.toRoman(4000), RangeError)
  assert.throws(() => r.toRoman(2.5), RangeError)
})

test('reads numerals', () => {
  assert.equal(r.fromRoman('MCMXCIV'), 1994)
  assert.equal(r.fromRoman('XLII'), 42)
  assert.equal(r.fromRoman('II'), 2)
  assert.throws(() => r.fromRoman('XB'), SyntaxError)
})

test('round-trips every number', () => {
  for (let n = 1; n < 4000; n++) assert.equal(r.fromRoman(r.toRoman(n)), n)
})

test('checks canonical spelling', () => {
  assert.equal(r.isCanonical('IV'), true)
  assert.equal(r.isCanonical('IIII'), false)
  assert.equal(r.isCanonical('Q'), false)
})
