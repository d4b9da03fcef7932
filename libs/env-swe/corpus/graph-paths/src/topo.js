'use strict'

const { neighbours } = require('./graph.js')

function inDegrees(graph) {
  const degrees = new Map()
  for (const node of graph.keys()) degrees.set(node, 0)
  for (const node of graph.keys()) {
    for (const next of neighbours(graph, node)) degrees.set(next, degrees.get(next) + 1)
  }
  return degrees
}

// Kahn's algorithm; ties are broken alphabetically so the order is deterministic.
function topoSort(graph) {
  const degrees = inDegrees(graph)
  const ready = [...degrees.keys()].filter((n) => degrees.get(n) === 0).sort()
  const order = []
  while (ready.length > 0) {
    const node = ready.shift()
    order.push(node)
    for (const next of neighbours(graph, node)) {
      degrees.set(next, degrees.get(next) - 1)
      if (degrees.get(next) === 0) {
        ready.push(next)
        ready.sort()
      }
    }
  }
  if (order.length < graph.size) throw new Error('graph has a cycle')
  return order
}

function hasCycle(graph) {
  try {
    topoSort(graph)
    return false
  } catch (e) {
    return true
  }
}

module.exports = { inDegrees, topoSort, hasCycle }
