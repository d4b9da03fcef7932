'use strict'

function sum(xs) {
  let total = 0
  for (const x of xs) total += x
  return total
}

function mean(xs) {
  if (xs.length === 0) throw new RangeError('mean of an empty list')
  return sum(xs) / xs.length
}

function sorted(xs) {
  return xs.slice().sort((a, b) => a - b)
}

function median(xs) {
  if (xs.length === 0) throw new RangeError('median of an empty list')
  const s = sorted(xs)
  const mid = Math.floor(s.length / 2)
  if (s.length % 2 === 1) return s[mid]
  return (s[mid - 1] + s[mid]) / 2
}

// Linear interpolation between closest ranks, p in [0, 100].
function percentile(xs, p) {
  if (p < 0 || p > 100) throw new RangeError('p must be in [0, 100]')
  const s = sorted(xs)
  const rank = (p / 100) * (s.length - 1)
  const lo = Math.floor(rank)
  const hi = Math.ceil(rank)
  return s[lo] + (s[hi] - s[lo]) * (rank - lo)
}

// Sample variance (n - 1 in the denominator).
function variance(xs) {
  if (xs.length < 2) return 0
  const m = mean(xs)
  let acc = 0
  for (const x of xs) acc += (x - m) * (x - m)
  return acc / (xs.length - 1)
}

function histogram(xs, lo, hi, bins) {
  const counts = new Array(bins).fill(0)
  const width = (hi - lo) / bins
  for (const x of xs) {
    if (x < lo || x > hi) continue
    const i = x === hi ? bins - 1 : Math.floor((x - lo) / width)
    counts[i] += 1
  }
  return counts
}

module.exports = { sum, mean, median, percentile, variance, histogram }
