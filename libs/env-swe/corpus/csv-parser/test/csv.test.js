'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const csv = require('../src/csv.js')
const table = require('../src/table.js')

test('splits plain fields', () => {
  assert.deepEqual(csv.parseLine('a,b,,c'), ['a', 'b', '', 'c'])
})

test('keeps separators inside quotes', () => {
  assert.deepEqual(csv.parseLine('"x,y",z'), ['x,y', 'z'])
})

test('unescapes doubled quotes', () => {
  assert.deepEqual(csv.parseLine('"say ""hi""",2'), ['say "hi"', '2'])
})

test('supports another separator', () => {
  assert.deepEqual(csv.parseLine('a;b;c', ';'), ['a', 'b', 'c'])
})

test('rejects an unterminated quote', () => {
  assert.throws(() => csv.parseLine('"abc,d'), SyntaxError)
})

test('splits lines and drops trailing blanks', () => {
  assert.deepEqual(csv.splitLines('a\r\nb\n\n'), ['a', 'b'])
})

test('formats and quotes fields', () => {
  assert.equal(csv.formatLine(['a', 'b,c', 'd"e', 3]), 'a,"b,c","d""e",3')
  assert.deepEqual(csv.parseLine(csv.formatLine(['x"', 'y,z'])), ['x"', 'y,z'])
})

test('builds a table with named columns', () => {
  const t = table.parseTable('name,qty\napple,3\npear,5\n')
  assert.deepEqual(t.header, ['name', 'qty'])
  assert.deepEqual(t.rows[1], { name: 'pear', qty: '5' })
  assert.equal(t.rows.length, 2)
})

test('rejects ragged rows', () => {
  assert.throws(() => table.parseTable('a,b\n1,2,3'), /row 1 has 3 fields/)
})

test('sums and filters columns', () => {
  const t = table.parseTable('k,v\nx,1\ny,2\nx,4')
  assert.equal(table.sumColumn(t, 'v'), 7)
  assert.deepEqual(table.column(where(t), 'v'), ['1', '4'])
  function where(t0) { return table.where(t0, 'k', 'x') }
  assert.throws(() => table.column(t, 'missing'), /no column/)
})

test('reads an empty document', () => {
  assert.deepEqual(table.parseTable(''), { header: [], rows: [] })
})
