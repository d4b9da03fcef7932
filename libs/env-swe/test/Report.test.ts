import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Report.js'

const run = { secret: 'a'.repeat(64), tripwire: 'mtrl tripwire 0123' }
const sign = _.sign(run.secret)

type TestLine = Extract<_.Line, { kind: 'test' }>
const trip: Omit<TestLine, 'seq'> = { kind: 'test', name: run.tripwire, status: 'fail', message: 'boom' }

/** A channel as the harness writes it: the tests, the tripwire, then the end line. */
const channel = (tests: ReadonlyArray<Omit<TestLine, 'seq'>>, secret: string = run.secret): string => {
  const all = [...tests, trip]
  return [...all.map((t, seq) => _.sign(secret)({ ...t, seq })), _.sign(secret)({ seq: all.length, kind: 'end', tests: all.length })].join('')
}

const outcome = fc.record({
  name: fc.string({ minLength: 1, maxLength: 20 }),
  status: fc.constantFrom('pass' as const, 'fail' as const, 'skip' as const),
  message: fc.string({ maxLength: 30 })
})
const outcomes = fc.uniqueArray(outcome, { selector: (o) => o.name, maxLength: 8 }).filter((os) => os.every((o) => o.name !== run.tripwire))
const tests = (os: ReadonlyArray<_.Outcome>) => os.map((o) => ({ kind: 'test' as const, ...o }))

describe('Report', () => {
  it('reads back every outcome of a complete, signed run (tripwire excluded)', () => {
    fc.assert(
      fc.property(outcomes, (os) => {
        expect(_.read(run)(channel(tests(os)))).toEqual(E.right(os))
      })
    )
  })

  it('rejects any run cut short, at any byte', () => {
    fc.assert(
      fc.property(outcomes, fc.nat(), (os, cut) => {
        const text = channel(tests(os))
        expect(E.isLeft(_.read(run)(text.slice(0, cut % text.length)))).toBe(true)
      })
    )
  })

  it('rejects lines signed with another secret, and the old unsigned reporter format', () => {
    fc.assert(
      fc.property(outcomes, fc.string({ minLength: 1 }), (os, other) => {
        fc.pre(other !== run.secret)
        expect(_.read(run)(channel(tests(os), other))).toEqual(E.left({ _tag: 'Unsigned', line: 0 }))
      })
    )
    const forged = `@@mtrl-swe@@${JSON.stringify({ name: 'adds', passed: true, message: '' })}\n${channel([])}`
    expect(_.read(run)(forged)).toEqual(E.left({ _tag: 'Unsigned', line: 0 }))
  })

  it('rejects reordered, duplicated, miscounted and trailing lines', () => {
    const a = { kind: 'test' as const, name: 'a', status: 'pass' as const, message: '' }
    const lines = channel([a, { ...a, name: 'b' }])
      .split('\n')
      .slice(0, -1)
      .map((l) => `${l}\n`)
    expect(_.read(run)([lines[1], lines[0], ...lines.slice(2)].join(''))).toEqual(E.left({ _tag: 'OutOfOrder', line: 0, seq: 1 }))
    expect(_.read(run)(channel([a, a]))).toEqual(E.left({ _tag: 'Duplicate', name: 'a' }))
    const miscounted = [sign({ seq: 0, ...a }), sign({ seq: 1, ...trip }), sign({ seq: 2, kind: 'end', tests: 5 })].join('')
    expect(_.read(run)(miscounted)).toEqual(E.left({ _tag: 'Miscounted', reported: 2, counted: 5 }))
    const after = `${channel([a])}${sign({ seq: 3, ...a, name: 'late' })}`
    expect(_.read(run)(after)).toEqual(E.left({ _tag: 'OutOfOrder', line: 3, seq: 3 }))
  })

  it('rejects a run whose tripwire passed, is missing or ran twice', () => {
    const passing = [sign({ seq: 0, ...trip, status: 'pass' }), sign({ seq: 1, kind: 'end', tests: 1 })].join('')
    expect(_.read(run)(passing)).toEqual(E.left({ _tag: 'TripwireNotFailed', seen: 0 }))
    const missing = [sign({ seq: 0, kind: 'test', name: 'a', status: 'pass', message: '' }), sign({ seq: 1, kind: 'end', tests: 1 })].join('')
    expect(_.read(run)(missing)).toEqual(E.left({ _tag: 'TripwireNotFailed', seen: 0 }))
    const twice = [sign({ seq: 0, ...trip }), sign({ seq: 1, ...trip }), sign({ seq: 2, kind: 'end', tests: 2 })].join('')
    expect(_.read(run)(twice)).toEqual(E.left({ _tag: 'TripwireNotFailed', seen: 2 }))
  })

  it("carries each test's console output and the file's as text, never as a result", () => {
    fc.assert(
      fc.property(outcomes, fc.string({ maxLength: 40 }), (os, printed) => {
        const withOutput = os.map((o) => ({ ...o, output: `${o.status} ${printed}` }))
        const all = [...tests(withOutput), trip]
        const text = [...all.map((t, seq) => sign({ ...t, seq })), sign({ seq: all.length, kind: 'end', tests: all.length, output: printed })].join('')
        expect(_.readRun(run)(text)).toEqual(E.right({ outcomes: withOutput, output: printed }))
        expect(_.read(run)(text)).toEqual(E.right(withOutput))
      })
    )
  })

  it('describes every rejection in a sentence', () => {
    const all: ReadonlyArray<_.Rejection> = [
      { _tag: 'Unsigned', line: 0 },
      { _tag: 'Malformed', line: 1 },
      { _tag: 'OutOfOrder', line: 2, seq: 5 },
      { _tag: 'Incomplete', tests: 3 },
      { _tag: 'Miscounted', reported: 1, counted: 2 },
      { _tag: 'Duplicate', name: 'x' },
      { _tag: 'TripwireNotFailed', seen: 0 }
    ]
    for (const r of all) expect(_.describe(r)).toMatch(/^results rejected: /)
  })
})
