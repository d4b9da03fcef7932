'use strict'

function decode(part) {
  return decodeURIComponent(part.split('+').join(' '))
}

// 'a=1&b=2&a=3' -> { a: ['1', '3'], b: '2' }; a key without '=' gets the empty string.
function parse(query) {
  const text = query.startsWith('?') ? query.slice(1) : query
  const out = {}
  if (text.length === 0) return out
  for (const pair of text.split('&')) {
    if (pair.length === 0) continue
    const eq = pair.indexOf('=')
    const key = decode(eq === -1 ? pair : pair.slice(0, eq))
    const value = eq === -1 ? '' : decode(pair.slice(eq + 1))
    if (!(key in out)) out[key] = value
    else if (Array.isArray(out[key])) out[key].push(value)
    else out[key] = [out[key], value]
  }
  return out
}

function stringify(params) {
  const parts = []
  for (const key of Object.keys(params).sort()) {
    const value = params[key]
    if (value === undefined) continue
    const values = Array.isArray(value) ? value : [value]
    for (const v of values) parts.push(encodeURIComponent(key) + '=' + encodeURIComponent(String(v)))
  }
  return parts.join('&')
}

function getAll(params, key) {
  const value = params[key]
  if (value === undefined) return []
  return Array.isArray(value) ? value : [value]
}

function getInt(params, key, fallback) {
  const value = getAll(params, key)[0]
  if (value === undefined) return fallback
  const n = Number.parseInt(value, 10)
  return Number.isNaN(n) ? fallback : n
}

module.exports = { decode, parse, stringify, getAll, getInt }
