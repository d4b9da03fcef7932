'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const d = require('../src/dates.js')

test('knows leap years', () => {
  assert.equal(d.isLeap(2024), true)
  assert.equal(d.isLeap(1900), false)
  assert.equal(d.isLeap(2000), true)
  assert.equal(d.isLeap(2023), false)
})

test('knows month lengths', () => {
  assert.equal(d.daysInMonth(2024, 2), 29)
  assert.equal(d.daysInMonth(2023, 2), 28)
  assert.equal(d.daysInMonth(2023, 4), 30)
  assert.equal(d.daysInMonth(2023, 12), 31)
  assert.equal(d.daysInMonth(2023, 1), 31)
  assert.throws(() => d.daysInMonth(2023, 13), RangeError)
  assert.throws(() => d.daysInMonth(2023, 0), RangeError)
})

test('compares dates', () => {
  assert.ok(d.compare({ year: 2020, month: 1, day: 1 }, { year: 2019, month: 12, day: 31 }) > 0)
  assert.ok(d.compare({ year: 2020, month: 3, day: 1 }, { year: 2020, month: 3, day: 2 }) < 0)
  assert.equal(d.compare({ year: 2020, month: 3, day: 1 }, { year: 2020, month: 3, day: 1 }), 0)
})

test('rolls over month and year ends', () => {
  assert.deepEqual(d.nextDay({ year: 2023, month: 2, day: 28 }), { year: 2023, month: 3, day: 1 })
  assert.deepEqual(d.nextDay({ year: 2024, month: 2, day: 28 }), { year: 2024, month: 2, day: 29 })
  assert.deepEqual(d.nextDay({ year: 2023, month: 12, day: 31 }), { year: 2024, month: 1, day: 1 })
})

test('adds days', () => {
  assert.deepEqual(d.addDays({ year: 2023, month: 1, day: 30 }, 3), { year: 2023, month: 2, day: 2 })
  assert.deepEqual(d.addDays({ year: 2023, month: 1, day: 30 }, 0), { year: 2023, month: 1, day: 30 })
  assert.throws(() => d.addDays({ year: 2023, month: 1, day: 1 }, -1), RangeError)
})

test('lists an inclusive range', () => {
  const r = d.range({ year: 2023, month: 12, day: 30 }, { year: 2024, month: 1, day: 2 })
  assert.deepEqual(r.map(d.format), ['2023-12-30', '2023-12-31', '2024-01-01', '2024-01-02'])
})

test('formats with zero padding', () => {
  assert.equal(d.format({ year: 987, month: 3, day: 7 }), '0987-03-07')
})

test('parses and validates', () => {
  assert.deepEqual(d.parse('2024-02-29'), { year: 2024, month: 2, day: 29 })
  assert.throws(() => d.parse('2023-02-29'), RangeError)
  assert.throws(() => d.parse('2023-02'), SyntaxError)
  assert.throws(() => d.parse('2023-02-00'), RangeError)
})
