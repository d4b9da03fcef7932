'use strict'

const heap = require('./heap.js')

// Tasks with a higher priority run first; equal priorities run in submission order.
function createScheduler() {
  const byPriority = (a, b) => {
    if (a.priority !== b.priority) return b.priority - a.priority
    return a.seq - b.seq
  }
  return { queue: heap.createHeap(byPriority), seq: 0 }
}

function submit(scheduler, name, priority) {
  if (typeof name !== 'string' || name.length === 0) throw new TypeError('name must be a non-empty string')
  scheduler.seq += 1
  heap.push(scheduler.queue, { name, priority, seq: scheduler.seq })
  return scheduler.seq
}

function next(scheduler) {
  const task = heap.pop(scheduler.queue)
  return task === undefined ? null : task.name
}

function drain(scheduler, limit) {
  const out = []
  while (heap.size(scheduler.queue) > 0 && out.length < limit) out.push(next(scheduler))
  return out
}

function heapSort(values) {
  const h = heap.createHeap()
  for (const v of values) heap.push(h, v)
  const out = []
  while (heap.size(h) > 0) out.push(heap.pop(h))
  return out
}

module.exports = { createScheduler, submit, next, drain, heapSort }
