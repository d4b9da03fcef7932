'use strict'

function createHeap(compare) {
  return { items: [], compare: compare === undefined ? (a, b) => a - b : compare }
}

function swap(items, i, j) {
  const tmp = items[i]
  items[i] = items[j]
  items[j] = tmp
}

function siftUp(heap, index) {
  let i = index
  while (i > 0) {
    const parent = Math.floor((i - 1) / 2)
    if (heap.compare(heap.items[i], heap.items[parent]) >= 0) break
    swap(heap.items, i, parent)
    i = parent
  }
}

function siftDown(heap, index) {
  const n = heap.items.length
  let i = index
  for (;;) {
    const left = 2 * i + 1
    const right = left + 1
    let smallest = i
    if (left < n && heap.compare(heap.items[left], heap.items[smallest]) < 0) smallest = left
    if (right < n && heap.compare(heap.items[right], heap.items[smallest]) < 0) smallest = right
    if (smallest === i) return
    swap(heap.items, i, smallest)
    i = smallest
  }
}

function push(heap, item) {
  heap.items.push(item)
  siftUp(heap, heap.items.length - 1)
  return heap.items.length
}

function peek(heap) {
  return heap.items[0]
}

function pop(heap) {
  if (heap.items.length === 0) return undefined
  const top = heap.items[0]
  const last = heap.items.pop()
  if (heap.items.length > 0) {
    heap.items[0] = last
    siftDown(heap, 0)
  }
  return top
}

function size(heap) {
  return heap.items.length
}

module.exports = { createHeap, push, peek, pop, size }
