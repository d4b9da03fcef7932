'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const g = require('../src/graph.js')
const topo = require('../src/topo.js')

function build(edges) {
  const graph = g.createGraph()
  for (const [a, b] of edges) g.addEdge(graph, a, b)
  return graph
}

test('adds nodes for both ends of an edge', () => {
  const graph = build([['a', 'b']])
  assert.deepEqual([...graph.keys()], ['a', 'b'])
  assert.deepEqual(g.neighbours(graph, 'a'), ['b'])
  assert.deepEqual(g.neighbours(graph, 'zz'), [])
})

test('finds the shortest path', () => {
  const graph = build([['a', 'b'], ['b', 'c'], ['c', 'd'], ['a', 'c']])
  assert.deepEqual(g.shortestPath(graph, 'a', 'd'), ['a', 'c', 'd'])
  assert.deepEqual(g.shortestPath(graph, 'a', 'a'), ['a'])
})

test('returns null when there is no path', () => {
  const graph = build([['a', 'b'], ['c', 'd']])
  assert.equal(g.shortestPath(graph, 'a', 'd'), null)
  assert.equal(g.shortestPath(graph, 'x', 'a'), null)
})

test('counts reachable nodes', () => {
  const graph = build([['a', 'b'], ['b', 'c'], ['c', 'a'], ['d', 'a']])
  assert.equal(g.reachable(graph, 'a'), 3)
  assert.equal(g.reachable(graph, 'd'), 4)
})

test('computes in-degrees', () => {
  const graph = build([['a', 'c'], ['b', 'c'], ['c', 'd']])
  assert.deepEqual([...topo.inDegrees(graph)], [['a', 0], ['c', 2], ['b', 0], ['d', 1]])
})

test('sorts topologically with alphabetical ties', () => {
  const graph = build([['shirt', 'tie'], ['tie', 'jacket'], ['pants', 'shoes'], ['pants', 'belt'], ['belt', 'jacket']])
  assert.deepEqual(topo.topoSort(graph), ['pants', 'belt', 'shirt', 'shoes', 'tie', 'jacket'])
})

test('detects cycles', () => {
  assert.equal(topo.hasCycle(build([['a', 'b'], ['b', 'a']])), true)
  assert.equal(topo.hasCycle(build([['a', 'b'], ['b', 'c']])), false)
  assert.throws(() => topo.topoSort(build([['a', 'a']])), /cycle/)
})
