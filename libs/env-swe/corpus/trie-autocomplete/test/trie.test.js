'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const t = require('../src/trie.js')

function build(words) {
  const trie = t.createTrie()
  for (const w of words) t.insert(trie, w)
  return trie
}

test('counts inserted words', () => {
  const trie = build(['car', 'cart', 'car'])
  assert.equal(t.countOf(trie, 'car'), 2)
  assert.equal(t.countOf(trie, 'cart'), 1)
  assert.equal(t.countOf(trie, 'ca'), 0)
  assert.equal(t.countOf(trie, 'dog'), 0)
  assert.equal(trie.words, 2)
})

test('rejects the empty word', () => {
  assert.throws(() => t.insert(t.createTrie(), ''), /empty word/)
})

test('finds prefixes', () => {
  const trie = build(['apple'])
  assert.notEqual(t.find(trie, 'app'), null)
  assert.equal(t.find(trie, 'apx'), null)
})

test('completes by frequency then alphabetically', () => {
  const trie = build(['tea', 'ten', 'tent', 'ten', 'team', 'to'])
  assert.deepEqual(t.complete(trie, 'te', 10), ['ten', 'tea', 'team', 'tent'])
  assert.deepEqual(t.complete(trie, 'te', 2), ['ten', 'tea'])
})

test('completes the prefix itself when it is a word', () => {
  const trie = build(['go', 'gone'])
  assert.deepEqual(t.complete(trie, 'go', 5), ['go', 'gone'])
  assert.deepEqual(t.complete(trie, 'x', 5), [])
})
