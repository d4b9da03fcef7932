import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { Decode } from '../src/index.js'
import * as _ from '../src/Trajectory.js'

const turn = (action: string, reward: number): _.Turn => ({ action, reward, valid: true, parsed: true, score: 0, maxScore: 1 })

const example: _.Trajectory = {
  env: 'test',
  seed: 1,
  groupId: 'g',
  segments: [
    { kind: 'prompt', turn: 0, tokens: Int32Array.from([1, 2, 3]) },
    { kind: 'action', turn: 0, tokens: Int32Array.from([4, 5]), logprobs: Float32Array.from([-0.5, -0.25]) },
    { kind: 'observation', turn: 0, tokens: Int32Array.from([6]) },
    { kind: 'action', turn: 1, tokens: Int32Array.from([7, 8, 9]), logprobs: Float32Array.from([-1, -1, -1]) }
  ],
  turns: [turn('a', 0), turn('b', 1)],
  turnRewards: [0, 1],
  won: true,
  truncated: false
}

describe('Trajectory', () => {
  it('flattens tokens in order', () => {
    expect(Array.from(_.tokens(example))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9])
  })

  it('masks exactly the action tokens', () => {
    expect(Array.from(_.actionMask(example))).toEqual([0, 0, 0, 1, 1, 0, 1, 1, 1])
  })

  it('marks the action tokens of explored turns only, and keeps the flag through the codec', () => {
    expect(Array.from(_.exploredMask(example))).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0])
    const explored: _.Trajectory = { ...example, turns: [turn('a', 0), { ...turn('b', 1), explored: true }] }
    expect(Array.from(_.exploredMask(explored))).toEqual([0, 0, 0, 0, 0, 0, 1, 1, 1])
    const back = Decode.decode('trajectory', _.Trajectory)(JSON.parse(JSON.stringify(_.Trajectory.encode(explored))))
    expect(E.isRight(back) && back.right.turns.map((t) => t.explored === true)).toEqual([false, true])
  })

  it('gives the turn of each token, -1 for the prompt', () => {
    expect(Array.from(_.turnIndex(example))).toEqual([-1, -1, -1, 0, 0, 0, 1, 1, 1])
  })

  it('round-trips through JSON with its codec', () => {
    const json = JSON.parse(JSON.stringify(_.Trajectory.encode(example)))
    const back = Decode.decode('trajectory', _.Trajectory)(json)
    expect(E.isRight(back)).toBe(true)
    if (E.isRight(back)) {
      expect(back.right.segments[3]?.tokens).toEqual(example.segments[3]?.tokens)
      expect(back.right.segments[1]?.logprobs).toEqual(example.segments[1]?.logprobs)
      expect(_.Trajectory.encode(back.right)).toEqual(_.Trajectory.encode(example))
    }
  })

  it('rejects non-integer tokens with the field path', () => {
    const json = JSON.parse(JSON.stringify(_.Trajectory.encode(example)))
    json.segments[2].tokens = [1.5]
    const back = Decode.decode('trajectory', _.Trajectory)(json)
    expect(E.isLeft(back) && Decode.formatError(back.left)).toContain('segments.2.tokens')
  })

  it('validates invariants', () => {
    expect(E.isRight(_.validate(example))).toBe(true)
    expect(E.isLeft(_.validate({ ...example, turnRewards: [1] }))).toBe(true)
    const badLogprobs = { ...example, segments: [{ kind: 'action' as const, turn: 0, tokens: Int32Array.from([1]), logprobs: Float32Array.from([]) }] }
    expect(E.isLeft(_.validate(badLogprobs))).toBe(true)
  })

  it('carries allowed-token masks of constrained actions through the codec, and checks them', () => {
    const masked: _.Segment = { kind: 'action', turn: 1, tokens: Int32Array.from([7, 40]), masks: [Int32Array.from([1 << 7, 0]), null] }
    const withMasks = { ...example, segments: [...example.segments.slice(0, 3), { ...masked, masks: [Int32Array.from([1 << 7, 1 << 8]), null] }] }
    expect(E.isRight(_.validate(withMasks))).toBe(true)
    const back = _.Trajectory.decode(JSON.parse(JSON.stringify(_.Trajectory.encode(withMasks))))
    expect(E.isRight(back) && back.right.segments[3]!.masks).toEqual([Int32Array.from([1 << 7, 1 << 8]), null])
    const at = (segment: _.Segment) => _.validate({ ...example, segments: [...example.segments.slice(0, 3), segment] })
    expect(E.isRight(at(masked))).toBe(true)
    expect(at({ ...masked, tokens: Int32Array.from([8, 1]) })).toEqual(E.left('segments.3: masks.0 does not allow its token 8'))
    expect(at({ ...masked, masks: [null] })).toEqual(E.left('segments.3: 1 masks for 2 tokens'))
    expect(at({ ...masked, kind: 'observation' })).toEqual(E.left('segments.3: masks on a observation segment'))
    const json = JSON.parse(JSON.stringify(_.Trajectory.encode(withMasks)))
    json.segments[3].masks = [[1.5], null]
    const bad = Decode.decode('trajectory', _.Trajectory)(json)
    expect(E.isLeft(bad) && Decode.formatError(bad.left)).toContain('segments.3.masks.0')
  })
})
