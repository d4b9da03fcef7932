'use strict'

function createStock() {
  return new Map()
}

function add(stock, sku, qty) {
  if (!Number.isInteger(qty) || qty <= 0) throw new RangeError('qty must be a positive integer')
  stock.set(sku, (stock.get(sku) || 0) + qty)
  return stock.get(sku)
}

function remove(stock, sku, qty) {
  const have = stock.get(sku) || 0
  if (qty > have) throw new Error('only ' + have + ' of ' + sku + ' in stock')
  const left = have - qty
  if (left === 0) stock.delete(sku)
  else stock.set(sku, left)
  return left
}

function lowStock(stock, threshold) {
  const out = []
  for (const [sku, qty] of stock) {
    if (qty <= threshold) out.push(sku)
  }
  return out.sort()
}

function totalUnits(stock) {
  let total = 0
  for (const qty of stock.values()) total += qty
  return total
}

module.exports = { createStock, add, remove, lowStock, totalUnits }
