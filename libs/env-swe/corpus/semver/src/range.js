'use strict'

const { parse, compare } = require('./version.js')

// Returns [lowest allowed, first excluded] for '^1.2.3', '~1.2.3' or an exact version.
function bounds(range) {
  if (range.startsWith('^')) {
    const v = parse(range.slice(1))
    if (v.major > 0) return [v, { major: v.major + 1, minor: 0, patch: 0, pre: [] }]
    if (v.minor > 0) return [v, { major: 0, minor: v.minor + 1, patch: 0, pre: [] }]
    return [v, { major: 0, minor: 0, patch: v.patch + 1, pre: [] }]
  }
  if (range.startsWith('~')) {
    const v = parse(range.slice(1))
    return [v, { major: v.major, minor: v.minor + 1, patch: 0, pre: [] }]
  }
  const v = parse(range)
  return [v, { major: v.major, minor: v.minor, patch: v.patch + 1, pre: [] }]
}

function satisfies(version, range) {
  const [lo, hi] = bounds(range)
  const v = parse(version)
  return compare(v, lo) >= 0 && compare(v, hi) < 0
}

function maxSatisfying(versions, range) {
  let best = null
  for (const v of versions) {
    if (!satisfies(v, range)) continue
    if (best === null || compare(v, best) > 0) best = v
  }
  return best
}

function sortVersions(versions) {
  return versions.slice().sort(compare)
}

module.exports = { bounds, satisfies, maxSatisfying, sortVersions }
