'use strict'

// Parses one CSV line. Fields may be quoted with '"'; a doubled quote inside quotes is a literal quote.
function parseLine(line, separator) {
  const sep = separator === undefined ? ',' : separator
  const fields = []
  let field = ''
  let quoted = false
  let i = 0
  while (i < line.length) {
    const ch = line[i]
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        field += '"'
        i += 2
        continue
      }
      if (ch === '"') quoted = false
      else field += ch
    } else if (ch === '"') {
      quoted = true
    } else if (ch === sep) {
      fields.push(field)
      field = ''
    } else {
      field += ch
    }
    i += 1
  }
  if (quoted) throw new SyntaxError('unterminated quote')
  fields.push(field)
  return fields
}

function splitLines(text) {
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, l.length - 1) : l))
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop()
  return lines
}

function quote(field, separator) {
  const sep = separator === undefined ? ',' : separator
  const needs = field.includes(sep) || field.includes('"') || field.includes('\n')
  if (!needs) return field
  return '"' + field.split('"').join('""') + '"'
}

function formatLine(fields, separator) {
  const sep = separator === undefined ? ',' : separator
  return fields.map((f) => quote(String(f), sep)).join(sep)
}

module.exports = { parseLine, splitLines, quote, formatLine }
