'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const heap = require('../src/heap.js')
const sched = require('../src/scheduler.js')

test('pops in ascending order', () => {
  const h = heap.createHeap()
  for (const v of [5, 1, 4, 2, 3]) heap.push(h, v)
  const out = []
  while (heap.size(h) > 0) out.push(heap.pop(h))
  assert.deepEqual(out, [1, 2, 3, 4, 5])
})

test('peeks without removing', () => {
  const h = heap.createHeap()
  assert.equal(heap.peek(h), undefined)
  heap.push(h, 3)
  heap.push(h, 1)
  assert.equal(heap.peek(h), 1)
  assert.equal(heap.size(h), 2)
})

test('pop on an empty heap returns undefined', () => {
  assert.equal(heap.pop(heap.createHeap()), undefined)
})

test('push returns the new size', () => {
  const h = heap.createHeap()
  assert.equal(heap.push(h, 1), 1)
  assert.equal(heap.push(h, 0), 2)
})

test('honours a custom comparator', () => {
  const h = heap.createHeap((a, b) => b.length - a.length)
  for (const s of ['aa', 'a', 'aaaa', 'aaa']) heap.push(h, s)
  assert.equal(heap.pop(h), 'aaaa')
  assert.equal(heap.pop(h), 'aaa')
})

test('heap sort sorts many values', () => {
  const values = [9, 3, 7, 1, 8, 2, 6, 4, 5, 0, 11, 10]
  assert.deepEqual(sched.heapSort(values), values.slice().sort((a, b) => a - b))
})

test('the scheduler runs high priority first, ties in order', () => {
  const s = sched.createScheduler()
  sched.submit(s, 'low', 1)
  sched.submit(s, 'high', 5)
  sched.submit(s, 'mid-a', 3)
  sched.submit(s, 'mid-b', 3)
  assert.deepEqual(sched.drain(s, 10), ['high', 'mid-a', 'mid-b', 'low'])
  assert.equal(sched.next(s), null)
})

test('drain stops at the limit', () => {
  const s = sched.createScheduler()
  for (let i = 0; i < 5; i++) sched.submit(s, 't' + i, i)
  assert.deepEqual(sched.drain(s, 2), ['t4', 't3'])
})

test('rejects nameless tasks', () => {
  const s = sched.createScheduler()
  assert.throws(() => sched.submit(s, '', 1), TypeError)
  assert.equal(sched.submit(s, 'ok', 1), 1)
})
