'use strict'

function pageCount(total, perPage) {
  if (perPage < 1) throw new RangeError('perPage must be at least 1')
  if (total === 0) return 1
  return Math.ceil(total / perPage)
}

// Pages are numbered from 1.
function clampPage(page, total, perPage) {
  const last = pageCount(total, perPage)
  if (page < 1) return 1
  if (page > last) return last
  return page
}

function pageItems(items, page, perPage) {
  const p = clampPage(page, items.length, perPage)
  const start = (p - 1) * perPage
  return items.slice(start, start + perPage)
}

// Up to `size` page numbers centred on the current page.
function pageWindow(page, last, size) {
  const half = Math.floor(size / 2)
  let start = Math.max(1, page - half)
  const end = Math.min(last, start + size - 1)
  start = Math.max(1, end - size + 1)
  const out = []
  for (let i = start; i <= end; i++) out.push(i)
  return out
}

function describe(page, total, perPage) {
  if (total === 0) return 'no items'
  const p = clampPage(page, total, perPage)
  const first = (p - 1) * perPage + 1
  const last = Math.min(total, p * perPage)
  return first + '-' + last + ' of ' + total
}

module.exports = { pageCount, clampPage, pageItems, pageWindow, describe }
