'use strict'

// 'aaabcc' -> [['a', 3], ['b', 1], ['c', 2]]
function runs(items) {
  const out = []
  for (let i = 0; i < items.length; i++) {
    const last = out[out.length - 1]
    if (last !== undefined && last[0] === items[i]) last[1] += 1
    else out.push([items[i], 1])
  }
  return out
}

function encode(text) {
  let out = ''
  for (const [ch, count] of runs(text)) out += (count > 1 ? String(count) : '') + ch
  return out
}

function decode(encoded) {
  let out = ''
  let count = ''
  for (const ch of encoded) {
    if (ch >= '0' && ch <= '9') {
      count += ch
      continue
    }
    const n = count === '' ? 1 : Number(count)
    out += ch.repeat(n)
    count = ''
  }
  if (count !== '') throw new SyntaxError('dangling count ' + count)
  return out
}

function expand(pairs) {
  const out = []
  for (const [item, count] of pairs) {
    if (count < 1) throw new RangeError('count must be positive')
    for (let i = 0; i < count; i++) out.push(item)
  }
  return out
}

function longestRun(items) {
  let best = null
  for (const run of runs(items)) {
    if (best === null || run[1] > best[1]) best = run
  }
  return best
}

module.exports = { runs, encode, decode, expand, longestRun }
