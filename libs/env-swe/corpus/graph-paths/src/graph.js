'use strict'

function createGraph() {
  return new Map()
}

function addEdge(graph, from, to) {
  if (!graph.has(from)) graph.set(from, [])
  if (!graph.has(to)) graph.set(to, [])
  graph.get(from).push(to)
  return graph
}

function neighbours(graph, node) {
  return graph.get(node) || []
}

// Fewest-edges path from start to goal, or null.
function shortestPath(graph, start, goal) {
  if (!graph.has(start)) return null
  const previous = new Map([[start, null]])
  const queue = [start]
  let head = 0
  while (head < queue.length) {
    const node = queue[head]
    head += 1
    if (node === goal) break
    for (const next of neighbours(graph, node)) {
      if (previous.has(next)) continue
      previous.set(next, node)
      queue.push(next)
    }
  }
  if (!previous.has(goal)) return null
  const path = []
  for (let n = goal; n !== null; n = previous.get(n)) path.push(n)
  return path.reverse()
}

function reachable(graph, start) {
  const seen = new Set([start])
  const stack = [start]
  while (stack.length > 0) {
    const node = stack.pop()
    for (const next of neighbours(graph, node)) {
      if (seen.has(next)) continue
      seen.add(next)
      stack.push(next)
    }
  }
  return seen.size
}

module.exports = { createGraph, addEdge, neighbours, shortestPath, reachable }
