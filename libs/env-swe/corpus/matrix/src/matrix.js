'use strict'

function shape(m) {
  return [m.length, m.length === 0 ? 0 : m[0].length]
}

function zeros(rows, cols) {
  const out = []
  for (let i = 0; i < rows; i++) out.push(new Array(cols).fill(0))
  return out
}

function identity(n) {
  const out = zeros(n, n)
  for (let i = 0; i < n; i++) out[i][i] = 1
  return out
}

function transpose(m) {
  const [rows, cols] = shape(m)
  const out = zeros(cols, rows)
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) out[j][i] = m[i][j]
  }
  return out
}

function multiply(a, b) {
  const [n, k] = shape(a)
  const [k2, m] = shape(b)
  if (k !== k2) throw new RangeError('shape mismatch: ' + n + 'x' + k + ' times ' + k2 + 'x' + m)
  const out = zeros(n, m)
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) {
      let sum = 0
      for (let x = 0; x < k; x++) sum += a[i][x] * b[x][j]
      out[i][j] = sum
    }
  }
  return out
}

function minor(m, row, col) {
  return m.filter((_, i) => i !== row).map((r) => r.filter((_, j) => j !== col))
}

function determinant(m) {
  const [rows, cols] = shape(m)
  if (rows !== cols) throw new RangeError('determinant needs a square matrix')
  if (rows === 1) return m[0][0]
  if (rows === 2) return m[0][0] * m[1][1] - m[0][1] * m[1][0]
  let det = 0
  for (let j = 0; j < cols; j++) {
    const sign = j % 2 === 0 ? 1 : -1
    det += sign * m[0][j] * determinant(minor(m, 0, j))
  }
  return det
}

function trace(m) {
  let sum = 0
  for (let i = 0; i < m.length; i++) sum += m[i][i]
  return sum
}

module.exports = { shape, zeros, identity, transpose, multiply, minor, determinant, trace }
