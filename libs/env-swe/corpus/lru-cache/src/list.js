'use strict'

// A doubly linked list of { key, value } nodes; the head is the most recently used.
function createList() {
  return { head: null, tail: null, size: 0 }
}

function pushFront(list, node) {
  node.prev = null
  node.next = list.head
  if (list.head !== null) list.head.prev = node
  list.head = node
  if (list.tail === null) list.tail = node
  list.size += 1
  return node
}

function unlink(list, node) {
  if (node.prev !== null) node.prev.next = node.next
  else list.head = node.next
  if (node.next !== null) node.next.prev = node.prev
  else list.tail = node.prev
  node.prev = null
  node.next = null
  list.size -= 1
  return node
}

function popBack(list) {
  if (list.tail === null) return null
  return unlink(list, list.tail)
}

function toArray(list) {
  const out = []
  for (let node = list.head; node !== null; node = node.next) out.push(node.key)
  return out
}

module.exports = { createList, pushFront, unlink, popBack, toArray }
