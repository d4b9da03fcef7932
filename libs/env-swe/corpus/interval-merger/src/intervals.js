'use strict'

// Intervals are [start, end] pairs with start <= end, both ends included.

function normalize(interval) {
  const [a, b] = interval
  if (a > b) return [b, a]
  return [a, b]
}

function overlaps(x, y) {
  return x[0] <= y[1] && y[0] <= x[1]
}

function merge(intervals) {
  const sorted = intervals.map(normalize).sort((x, y) => x[0] - y[0])
  const out = []
  for (const current of sorted) {
    const last = out[out.length - 1]
    if (last !== undefined && current[0] <= last[1] + 1) {
      last[1] = Math.max(last[1], current[1])
    } else {
      out.push([current[0], current[1]])
    }
  }
  return out
}

function insert(intervals, interval) {
  return merge(intervals.concat([interval]))
}

function totalLength(intervals) {
  let total = 0
  for (const [a, b] of merge(intervals)) total += b - a + 1
  return total
}

function contains(intervals, point) {
  for (const [a, b] of intervals) {
    if (point >= a && point <= b) return true
  }
  return false
}

function gaps(intervals, lo, hi) {
  const out = []
  let cursor = lo
  for (const [a, b] of merge(intervals)) {
    if (b < cursor) continue
    if (a > hi) break
    if (a > cursor) out.push([cursor, a - 1])
    cursor = b + 1
  }
  if (cursor <= hi) out.push([cursor, hi])
  return out
}

module.exports = { normalize, overlaps, merge, insert, totalLength, contains, gaps }
