import { Decode, type Env } from '@mtrl/core'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Protocol.js'

const finite = fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (Object.is(x, -0) ? 0 : x))
const info: fc.Arbitrary<Env.StepInfo> = fc.record(
  {
    valid: fc.boolean(),
    score: finite,
    maxScore: finite,
    admissibleActions: fc.array(fc.string()),
    extra: fc.dictionary(
      fc.string().filter((k) => k !== '__proto__'),
      fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown)
    )
  },
  { requiredKeys: ['valid', 'score', 'maxScore'] }
)
const stepResult: fc.Arbitrary<Env.StepResult> = fc.record({ observation: fc.string(), reward: finite, done: fc.boolean(), won: fc.boolean(), info })
const observation: fc.Arbitrary<Env.Observation> = fc.record({ goal: fc.string(), text: fc.string(), info })

/** Through JSON text, as on the wire. */
const wire = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

describe('Protocol', () => {
  it('round-trips any StepResult through the wire exactly', () => {
    fc.assert(
      fc.property(stepResult, (result) => {
        const decoded = Decode.decode('step', _.StepResponse)(wire(_.encodeStep(result)))
        expect(E.map(_.decodeStep)(decoded)).toEqual(E.right(result))
      })
    )
  })

  it('round-trips any Observation through the wire exactly', () => {
    fc.assert(
      fc.property(observation, (obs) => {
        const decoded = Decode.decode('reset', _.ResetResponse)(wire(_.encodeReset(obs)))
        expect(E.map(_.decodeReset)(decoded)).toEqual(E.right(obs))
      })
    )
  })

  it('puts admissible actions where AgentGym clients read them', () => {
    const encoded = _.encodeStep({
      observation: 'o',
      reward: 1,
      done: false,
      won: false,
      info: { valid: true, score: 1, maxScore: 2, admissibleActions: ['look'] }
    })
    expect(encoded).toEqual({
      observation: 'o',
      reward: 1,
      done: false,
      won: false,
      info: { valid: true, score: 1, maxScore: 2, available_actions: ['look'] },
      available_actions: ['look']
    })
  })

  it('reads both id styles and every seed name', () => {
    expect(E.map(_.idOf)(_.IdRef.decode({ env_idx: 4 }))).toEqual(E.right(4))
    expect(E.map(_.createdId)(_.CreateResponse.decode(7))).toEqual(E.right(7))
    expect(E.map(_.createdId)(_.CreateResponse.decode({ id: 2 }))).toEqual(E.right(2))
    expect(E.map(_.seedOf)(_.ResetRequest.decode({ id: 0, data_idx: 3 }))).toEqual(E.right(3))
    expect(E.map(_.seedOf)(_.ResetRequest.decode({ id: 0, game: 5, seed: 6 }))).toEqual(E.right(6))
    expect(E.isLeft(_.StepRequest.decode({ id: 1.5, action: 'x' }))).toBe(true)
  })
})
