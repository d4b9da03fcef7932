'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const l = require('../src/ledger.js')

function setup() {
  const ledger = l.createLedger()
  l.open(ledger, 'alice')
  l.open(ledger, 'bob', 500)
  return ledger
}

test('deposits add to the balance', () => {
  const g = setup()
  assert.equal(l.deposit(g, 'alice', 1000), 1000)
  assert.equal(l.deposit(g, 'alice', 1), 1001)
})

test('withdrawals cannot overdraw without an overdraft', () => {
  const g = setup()
  l.deposit(g, 'alice', 100)
  assert.equal(l.withdraw(g, 'alice', 100), 0)
  assert.throws(() => l.withdraw(g, 'alice', 1), /insufficient funds/)
})

test('an overdraft allows a negative balance up to its limit', () => {
  const g = setup()
  assert.equal(l.withdraw(g, 'bob', 500), -500)
  assert.throws(() => l.withdraw(g, 'bob', 1), /insufficient funds/)
})

test('amounts must be positive integers', () => {
  const g = setup()
  assert.throws(() => l.deposit(g, 'alice', 0), RangeError)
  assert.throws(() => l.deposit(g, 'alice', -5), RangeError)
  assert.throws(() => l.deposit(g, 'alice', 1.5), RangeError)
})

test('unknown and duplicate accounts are errors', () => {
  const g = setup()
  assert.throws(() => l.deposit(g, 'carol', 5), /no account: carol/)
  assert.throws(() => l.open(g, 'alice'), /account exists/)
})

test('transfers move money between accounts', () => {
  const g = setup()
  l.deposit(g, 'alice', 300)
  assert.deepEqual(l.transfer(g, 'alice', 'bob', 200), [100, 200])
  assert.throws(() => l.transfer(g, 'alice', 'alice', 1), /same account/)
})

test('a failed transfer changes nothing', () => {
  const g = setup()
  assert.throws(() => l.transfer(g, 'alice', 'nobody', 10), /no account/)
  assert.throws(() => l.transfer(g, 'alice', 'bob', 10), /insufficient/)
  assert.equal(l.account(g, 'bob').balance, 0)
  assert.equal(g.history.length, 0)
})

test('statements show a running balance', () => {
  const g = setup()
  l.deposit(g, 'alice', 50)
  l.deposit(g, 'bob', 7)
  l.withdraw(g, 'alice', 20)
  assert.deepEqual(l.statement(g, 'alice'), ['deposit 50 -> 50', 'withdraw 20 -> 30'])
})
