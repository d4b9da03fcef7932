'use strict'

// capacity tokens at most; refills ratePerSecond tokens per second; time in milliseconds.
function createBucket(capacity, ratePerSecond, now) {
  if (capacity <= 0) throw new RangeError('capacity must be positive')
  if (ratePerSecond < 0) throw new RangeError('rate must not be negative')
  return { capacity, rate: ratePerSecond, tokens: capacity, last: now }
}

function refill(bucket, now) {
  if (now < bucket.last) throw new RangeError('clock went backwards')
  const elapsed = (now - bucket.last) / 1000
  bucket.tokens = Math.min(bucket.capacity, bucket.tokens + elapsed * bucket.rate)
  bucket.last = now
  return bucket.tokens
}

function tryTake(bucket, now, cost) {
  const n = cost === undefined ? 1 : cost
  refill(bucket, now)
  if (bucket.tokens < n) return false
  bucket.tokens -= n
  return true
}

// Milliseconds until `cost` tokens are available (0 if available now).
function waitTime(bucket, now, cost) {
  const n = cost === undefined ? 1 : cost
  if (n > bucket.capacity) return Infinity
  refill(bucket, now)
  if (bucket.tokens >= n) return 0
  if (bucket.rate === 0) return Infinity
  return Math.ceil(((n - bucket.tokens) / bucket.rate) * 1000)
}

module.exports = { createBucket, refill, tryTake, waitTime }
