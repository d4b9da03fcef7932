'use strict'

const { parseLine, splitLines } = require('./csv.js')

function parseTable(text, separator) {
  const lines = splitLines(text)
  if (lines.length === 0) return { header: [], rows: [] }
  const header = parseLine(lines[0], separator)
  const rows = []
  for (let i = 1; i < lines.length; i++) {
    const fields = parseLine(lines[i], separator)
    if (fields.length !== header.length) throw new Error('row ' + i + ' has ' + fields.length + ' fields, expected ' + header.length)
    const row = {}
    for (let j = 0; j < header.length; j++) row[header[j]] = fields[j]
    rows.push(row)
  }
  return { header, rows }
}

function column(table, name) {
  if (!table.header.includes(name)) throw new Error('no column ' + name)
  return table.rows.map((row) => row[name])
}

function sumColumn(table, name) {
  let total = 0
  for (const value of column(table, name)) total += Number(value)
  return total
}

function where(table, name, value) {
  return { header: table.header, rows: table.rows.filter((row) => row[name] === value) }
}

module.exports = { parseTable, column, sumColumn, where }
