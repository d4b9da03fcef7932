'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const stock = require('../src/stock.js')
const pricing = require('../src/pricing.js')

test('adds stock', () => {
  const s = stock.createStock()
  assert.equal(stock.add(s, 'pen', 5), 5)
  assert.equal(stock.add(s, 'pen', 2), 7)
  assert.throws(() => stock.add(s, 'pen', 0), RangeError)
})

test('removes stock and forgets empty items', () => {
  const s = stock.createStock()
  stock.add(s, 'pen', 5)
  assert.equal(stock.remove(s, 'pen', 2), 3)
  assert.equal(stock.remove(s, 'pen', 3), 0)
  assert.equal(s.has('pen'), false)
  assert.throws(() => stock.remove(s, 'pen', 1), /only 0 of pen/)
})

test('lists low stock at or below the threshold', () => {
  const s = stock.createStock()
  stock.add(s, 'b', 3)
  stock.add(s, 'a', 2)
  stock.add(s, 'c', 10)
  assert.deepEqual(stock.lowStock(s, 3), ['a', 'b'])
  assert.equal(stock.totalUnits(s), 15)
})

test('discount tiers', () => {
  assert.equal(pricing.discountPercent(9), 0)
  assert.equal(pricing.discountPercent(10), 5)
  assert.equal(pricing.discountPercent(50), 10)
  assert.equal(pricing.discountPercent(99), 10)
  assert.equal(pricing.discountPercent(100), 15)
})

test('line totals apply the discount', () => {
  assert.equal(pricing.lineTotal(200, 5), 1000)
  assert.equal(pricing.lineTotal(200, 10), 1900)
  assert.equal(pricing.lineTotal(199, 100), 16915)
  assert.throws(() => pricing.lineTotal(1, -1), RangeError)
})

test('order totals need every price', () => {
  const prices = { pen: 150, pad: 300 }
  assert.equal(pricing.orderTotal([{ sku: 'pen', qty: 2 }, { sku: 'pad', qty: 1 }], prices), 600)
  assert.throws(() => pricing.orderTotal([{ sku: 'ink', qty: 1 }], prices), /no price for ink/)
})

test('formats cents', () => {
  assert.equal(pricing.formatCents(123456), '1234.56')
  assert.equal(pricing.formatCents(5), '0.05')
  assert.equal(pricing.formatCents(-250), '-2.50')
})
