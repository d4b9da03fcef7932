'use strict'

// First index whose value is >= target (arr.length if none).
function lowerBound(arr, target) {
  let lo = 0
  let hi = arr.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (arr[mid] < target) lo = mid + 1
    else hi = mid
  }
  return lo
}

// First index whose value is > target (arr.length if none).
function upperBound(arr, target) {
  let lo = 0
  let hi = arr.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (arr[mid] <= target) lo = mid + 1
    else hi = mid
  }
  return lo
}

function indexOf(arr, target) {
  const i = lowerBound(arr, target)
  if (i < arr.length && arr[i] === target) return i
  return -1
}

function count(arr, target) {
  return upperBound(arr, target) - lowerBound(arr, target)
}

function insertSorted(arr, value) {
  const out = arr.slice()
  out.splice(upperBound(arr, value), 0, value)
  return out
}

function rangeCount(arr, lo, hi) {
  if (lo > hi) return 0
  return upperBound(arr, hi) - lowerBound(arr, lo)
}

module.exports = { lowerBound, upperBound, indexOf, count, insertSorted, rangeCount }
