'use strict'

function createNode() {
  return { children: new Map(), count: 0 }
}

function createTrie() {
  return { root: createNode(), words: 0 }
}

function insert(trie, word) {
  if (word.length === 0) throw new Error('cannot insert the empty word')
  let node = trie.root
  for (const ch of word) {
    if (!node.children.has(ch)) node.children.set(ch, createNode())
    node = node.children.get(ch)
  }
  if (node.count === 0) trie.words += 1
  node.count += 1
  return node.count
}

function find(trie, prefix) {
  let node = trie.root
  for (const ch of prefix) {
    node = node.children.get(ch)
    if (node === undefined) return null
  }
  return node
}

function countOf(trie, word) {
  const node = find(trie, word)
  return node === null ? 0 : node.count
}

function collect(node, prefix, out) {
  if (node.count > 0) out.push([prefix, node.count])
  for (const [ch, child] of node.children) collect(child, prefix + ch, out)
  return out
}

// Up to `limit` completions, most frequent first, ties alphabetically.
function complete(trie, prefix, limit) {
  const node = find(trie, prefix)
  if (node === null) return []
  const all = collect(node, prefix, [])
  all.sort((a, b) => (b[1] !== a[1] ? b[1] - a[1] : a[0] < b[0] ? -1 : 1))
  return all.slice(0, limit).map((pair) => pair[0])
}

module.exports = { createTrie, insert, find, countOf, complete }
