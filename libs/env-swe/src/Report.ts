/**
 * The results channel of one test-file run, read by the host. The harness (`Harness`) writes
 * one line per top-level test and one at the end, on fd 3, a pipe only the host reads:
 *
 * ```
 * {"seq":0,"kind":"test","name":"adds","status":"pass","message":""}<TAB><hex HMAC-SHA256(secret, json)>
 * {"seq":1,"kind":"test","name":"<tripwire>","status":"fail","message":"..."}<TAB><mac>
 * {"seq":2,"kind":"end","tests":2}<TAB><mac>
 * ```
 *
 * `read` accepts a run only if it is complete and well-formed: every line signed with this
 * run's secret, numbered 0, 1, 2, ... with nothing after the end line, the end line counting
 * the test lines, no test reported twice, and the tripwire reported exactly once, as failed.
 * Anything else rejects the whole file: its tests then count as failed. Stdout is never read
 * for results, so printing reporter-like lines earns nothing.
 *
 * @since 0.1.0
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'

/** @category codecs @since 0.1.0 */
export const Status = t.keyof({ pass: null, fail: null, skip: null })
/** @category models @since 0.1.0 */
export type Status = t.TypeOf<typeof Status>

/**
 * One line's JSON, as the harness writes it.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Line = t.union([
  t.intersection([
    t.type({ seq: t.number, kind: t.literal('test'), name: t.string, status: Status, message: t.string }),
    /** What the code printed during the test (capped by the harness): text for the agent, never a result. */
    t.partial({ output: t.string })
  ]),
  /** `output`: what the code printed outside any test. */
  t.intersection([t.type({ seq: t.number, kind: t.literal('end'), tests: t.number }), t.partial({ output: t.string })])
])
/** @category models @since 0.1.0 */
export type Line = t.TypeOf<typeof Line>

/**
 * One test's reported outcome (the tripwire excluded).
 *
 * @category models
 * @since 0.1.0
 */
export interface Outcome {
  readonly name: string
  readonly status: Status
  readonly message: string
  /** What the code printed during the test, if anything (never part of the result). */
  readonly output?: string
}

/**
 * An accepted run: its outcomes, and what the code printed outside any test.
 *
 * @category models
 * @since 0.2.0
 */
export interface Run {
  readonly outcomes: ReadonlyArray<Outcome>
  readonly output: string
}

/**
 * Why a run's report was rejected.
 *
 * @category models
 * @since 0.1.0
 */
export type Rejection =
  | { readonly _tag: 'Unsigned'; readonly line: number }
  | { readonly _tag: 'Malformed'; readonly line: number }
  | { readonly _tag: 'OutOfOrder'; readonly line: number; readonly seq: number }
  | { readonly _tag: 'Incomplete'; readonly tests: number }
  | { readonly _tag: 'Miscounted'; readonly reported: number; readonly counted: number }
  | { readonly _tag: 'Duplicate'; readonly name: string }
  | { readonly _tag: 'TripwireNotFailed'; readonly seen: number }

/**
 * A rejection as a sentence for the agent's observation.
 *
 * @category destructors
 * @since 0.1.0
 */
export const describe = (r: Rejection): string => {
  switch (r._tag) {
    case 'Unsigned':
      return `results rejected: line ${r.line + 1} of the results channel is not signed by this run`
    case 'Malformed':
      return `results rejected: line ${r.line + 1} of the results channel is malformed`
    case 'OutOfOrder':
      return `results rejected: line ${r.line + 1} of the results channel is numbered ${r.seq}`
    case 'Incomplete':
      return `results rejected: the run ended after ${r.tests} test result(s), before reporting its end`
    case 'Miscounted':
      return `results rejected: the end of the run counts ${r.counted} test(s), ${r.reported} were reported`
    case 'Duplicate':
      return `results rejected: test ${JSON.stringify(r.name)} was reported more than once`
    case 'TripwireNotFailed':
      return `results rejected: the tripwire test did not fail exactly once (seen ${r.seen} failing)`
  }
}

const mac = (secret: string, body: string): Buffer => createHmac('sha256', secret).update(body).digest()

/**
 * Signs one line's JSON as the harness does (`json\tmac\n`); for tests and tools.
 *
 * @category constructors
 * @since 0.1.0
 */
export const sign =
  (secret: string) =>
  (line: Line): string => {
    const body = JSON.stringify(line)
    return `${body}\t${mac(secret, body).toString('hex')}\n`
  }

const verified = (secret: string, text: string): E.Either<'Unsigned' | 'Malformed', Line> => {
  const tab = text.lastIndexOf('\t')
  if (tab === -1) return E.left('Unsigned')
  const body = text.slice(0, tab)
  const given = Buffer.from(text.slice(tab + 1), 'hex')
  const expected = mac(secret, body)
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return E.left('Unsigned')
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    return E.left('Malformed')
  }
  const line = Line.decode(json)
  return E.isLeft(line) ? E.left('Malformed') : E.right(line.right)
}

/**
 * Reads a run's channel output: the outcomes of its tests (tripwire excluded) if the run is
 * complete and well-formed, otherwise why not.
 *
 * @example
 * import { Report } from '@mtrl/env-swe'
 * const s = Report.sign('k')
 * const text = s({ seq: 0, kind: 'test', name: 'trip', status: 'fail', message: '' }) + s({ seq: 1, kind: 'end', tests: 1 })
 * Report.read({ secret: 'k', tripwire: 'trip' })(text) // Right([])
 *
 * @category destructors
 * @since 0.1.0
 */
export const read =
  (run: { readonly secret: string; readonly tripwire: string }) =>
  (channel: string): E.Either<Rejection, ReadonlyArray<Outcome>> =>
    E.map((r: Run) => r.outcomes)(readRun(run)(channel))

/**
 * As `read`, with what the code printed outside any test (the end line's `output`).
 *
 * @category destructors
 * @since 0.2.0
 */
export const readRun =
  (run: { readonly secret: string; readonly tripwire: string }) =>
  (channel: string): E.Either<Rejection, Run> => {
    const lines = channel.split('\n')
    // A complete channel ends with a newline: the last piece is empty; anything else is cut.
    const complete = lines.pop() === ''
    const outcomes: Outcome[] = []
    const names = new Set<string>()
    let tripwires = 0
    let ended: { readonly output: string } | undefined
    for (const [i, text] of lines.entries()) {
      const line = verified(run.secret, text)
      if (E.isLeft(line)) return E.left({ _tag: line.left, line: i })
      if (line.right.seq !== i || ended !== undefined) return E.left({ _tag: 'OutOfOrder', line: i, seq: line.right.seq })
      const l = line.right
      if (l.kind === 'end') {
        if (l.tests !== outcomes.length + tripwires) return E.left({ _tag: 'Miscounted', reported: outcomes.length + tripwires, counted: l.tests })
        ended = { output: l.output ?? '' }
        continue
      }
      if (l.name === run.tripwire) {
        if (l.status !== 'fail') return E.left({ _tag: 'TripwireNotFailed', seen: tripwires })
        tripwires++
        continue
      }
      if (names.has(l.name)) return E.left({ _tag: 'Duplicate', name: l.name })
      names.add(l.name)
      outcomes.push({ name: l.name, status: l.status, message: l.message, ...(l.output === undefined ? {} : { output: l.output }) })
    }
    if (ended === undefined || !complete) return E.left({ _tag: 'Incomplete', tests: outcomes.length })
    if (tripwires !== 1) return E.left({ _tag: 'TripwireNotFailed', seen: tripwires })
    return E.right({ outcomes, output: ended.output })
  }
