'use strict'

// Dates are { year, month, day } records with month in 1..12.

function isLeap(year) {
  if (year % 400 === 0) return true
  if (year % 100 === 0) return false
  return year % 4 === 0
}

function daysInMonth(year, month) {
  if (month < 1 || month > 12) throw new RangeError('month out of range')
  if (month === 2) return isLeap(year) ? 29 : 28
  if (month === 4 || month === 6 || month === 9 || month === 11) return 30
  return 31
}

function compare(a, b) {
  if (a.year !== b.year) return a.year - b.year
  if (a.month !== b.month) return a.month - b.month
  return a.day - b.day
}

function nextDay(date) {
  if (date.day < daysInMonth(date.year, date.month)) return { year: date.year, month: date.month, day: date.day + 1 }
  if (date.month < 12) return { year: date.year, month: date.month + 1, day: 1 }
  return { year: date.year + 1, month: 1, day: 1 }
}

function addDays(date, n) {
  if (n < 0) throw new RangeError('n must not be negative')
  let current = date
  for (let i = 0; i < n; i++) current = nextDay(current)
  return current
}

function range(start, end) {
  const out = []
  for (let d = start; compare(d, end) <= 0; d = nextDay(d)) out.push(d)
  return out
}

function format(date) {
  const pad = (n, width) => String(n).padStart(width, '0')
  return pad(date.year, 4) + '-' + pad(date.month, 2) + '-' + pad(date.day, 2)
}

function parse(text) {
  const parts = text.split('-').map(Number)
  if (parts.length !== 3 || parts.some(Number.isNaN)) throw new SyntaxError('expected YYYY-MM-DD')
  const [year, month, day] = parts
  if (day < 1 || day > daysInMonth(year, month)) throw new RangeError('day out of range')
  return { year, month, day }
}

module.exports = { isLeap, daysInMonth, compare, nextDay, addDays, range, format, parse }
