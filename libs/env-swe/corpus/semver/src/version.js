'use strict'

function parse(text) {
  const core = text.startsWith('v') ? text.slice(1) : text
  const dash = core.indexOf('-')
  const main = dash === -1 ? core : core.slice(0, dash)
  const pre = dash === -1 ? [] : core.slice(dash + 1).split('.')
  const parts = main.split('.')
  if (parts.length !== 3) throw new SyntaxError('invalid version ' + text)
  const nums = parts.map(Number)
  if (nums.some((n) => !Number.isInteger(n) || n < 0)) throw new SyntaxError('invalid version ' + text)
  return { major: nums[0], minor: nums[1], patch: nums[2], pre }
}

function comparePre(a, b) {
  if (a.length === 0 && b.length === 0) return 0
  if (a.length === 0) return 1
  if (b.length === 0) return -1
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    if (a[i] === b[i]) continue
    const an = Number(a[i])
    const bn = Number(b[i])
    if (Number.isInteger(an) && Number.isInteger(bn)) return an < bn ? -1 : 1
    return a[i] < b[i] ? -1 : 1
  }
  return a.length - b.length
}

function compare(a, b) {
  const x = typeof a === 'string' ? parse(a) : a
  const y = typeof b === 'string' ? parse(b) : b
  if (x.major !== y.major) return x.major > y.major ? 1 : -1
  if (x.minor !== y.minor) return x.minor > y.minor ? 1 : -1
  if (x.patch !== y.patch) return x.patch > y.patch ? 1 : -1
  return Math.sign(comparePre(x.pre, y.pre))
}

function format(v) {
  const base = v.major + '.' + v.minor + '.' + v.patch
  return v.pre.length === 0 ? base : base + '-' + v.pre.join('.')
}

module.exports = { parse, compare, comparePre, format }
