'use strict'

// Amounts are integer cents.
function createLedger() {
  return { accounts: new Map(), history: [] }
}

function open(ledger, id, overdraft) {
  if (ledger.accounts.has(id)) throw new Error('account exists: ' + id)
  ledger.accounts.set(id, { id, balance: 0, overdraft: overdraft === undefined ? 0 : overdraft })
}

function account(ledger, id) {
  const acc = ledger.accounts.get(id)
  if (acc === undefined) throw new Error('no account: ' + id)
  return acc
}

function checkAmount(amount) {
  if (!Number.isInteger(amount) || amount <= 0) throw new RangeError('amount must be a positive integer')
}

function deposit(ledger, id, amount) {
  checkAmount(amount)
  const acc = account(ledger, id)
  acc.balance += amount
  ledger.history.push({ type: 'deposit', id, amount })
  return acc.balance
}

function withdraw(ledger, id, amount) {
  checkAmount(amount)
  const acc = account(ledger, id)
  if (acc.balance - amount < -acc.overdraft) throw new Error('insufficient funds')
  acc.balance -= amount
  ledger.history.push({ type: 'withdraw', id, amount })
  return acc.balance
}

function transfer(ledger, from, to, amount) {
  if (from === to) throw new Error('cannot transfer to the same account')
  account(ledger, to)
  withdraw(ledger, from, amount)
  deposit(ledger, to, amount)
  return [account(ledger, from).balance, account(ledger, to).balance]
}

function statement(ledger, id) {
  let running = 0
  const lines = []
  for (const entry of ledger.history) {
    if (entry.id !== id) continue
    running += entry.type === 'deposit' ? entry.amount : -entry.amount
    lines.push(entry.type + ' ' + entry.amount + ' -> ' + running)
  }
  return lines
}

module.exports = { createLedger, open, account, deposit, withdraw, transfer, statement }
