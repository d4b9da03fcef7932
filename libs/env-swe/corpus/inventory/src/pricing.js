'use strict'

// Prices in cents. Tiers: 10+ units 5% off, 50+ units 10% off, 100+ units 15% off.
const TIERS = [[100, 15], [50, 10], [10, 5]]

function discountPercent(qty) {
  for (const [minQty, percent] of TIERS) {
    if (qty >= minQty) return percent
  }
  return 0
}

function lineTotal(unitPrice, qty) {
  if (qty < 0) throw new RangeError('qty must not be negative')
  const gross = unitPrice * qty
  return gross - Math.round((gross * discountPercent(qty)) / 100)
}

function orderTotal(lines, prices) {
  let total = 0
  for (const line of lines) {
    const price = prices[line.sku]
    if (price === undefined) throw new Error('no price for ' + line.sku)
    total += lineTotal(price, line.qty)
  }
  return total
}

function formatCents(cents) {
  const sign = cents < 0 ? '-' : ''
  const abs = Math.abs(cents)
  return sign + Math.floor(abs / 100) + '.' + String(abs % 100).padStart(2, '0')
}

module.exports = { discountPercent, lineTotal, orderTotal, formatCents }
