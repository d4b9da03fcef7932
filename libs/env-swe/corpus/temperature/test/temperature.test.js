import test from 'node:test'
import assert from 'node:assert/strict'
import { convert, countAtLeast } from '../src/convert.js'
import { format, range, round } from '../src/format.js'

test('converts between celsius, fahrenheit and kelvin', () => {
  assert.equal(convert(100, 'C', 'F'), 212)
  assert.equal(convert(32, 'F', 'C'), 0)
  assert.equal(convert(0, 'K', 'C'), -273.15)
  assert.equal(round(convert(300, 'K', 'F'), 2), 80.33)
})

test('refuses unknown units and temperatures below absolute zero', () => {
  assert.throws(() => convert(1, 'X', 'C'), /unknown unit X/)
  assert.throws(() => convert(1, 'C', 'X'), /unknown unit X/)
  assert.throws(() => convert(-300, 'C', 'K'), /below absolute zero/)
  assert.equal(convert(-273.15, 'C', 'K'), 0)
})

test('counts the readings at or above a threshold', () => {
  assert.equal(countAtLeast([10, 20, 30], 20), 2)
  assert.equal(countAtLeast([], 0), 0)
  assert.equal(countAtLeast([5, 5], 6), 0)
})

test('rounds without a negative zero', () => {
  assert.equal(round(1.25, 1), 1.3)
  assert.equal(round(-0.04, 1), 0)
  assert.equal(Object.is(round(-0.04, 1), -0), false)
})

test('formats a reading with its unit symbol', () => {
  assert.equal(format(21.5, 'C', 'C'), '21.5 °C')
  assert.equal(format(0, 'C', 'F', 0), '32 °F')
  assert.equal(format(0, 'C', 'K', 2), '273.15 K')
})

test('gives the range of the readings', () => {
  assert.equal(range([3, -2, 7], 'C', 'C'), '-2.0 °C to 7.0 °C')
  assert.equal(range([50], 'F', 'C'), '10.0 °C to 10.0 °C')
  assert.equal(range([], 'C', 'C'), 'no readings')
})
