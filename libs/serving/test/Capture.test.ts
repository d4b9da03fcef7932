import { Trajectory } from '@mtrl/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Capture.js'

const call = (prompt: ReadonlyArray<number>, completion: ReadonlyArray<number>, reencoded = 0): _.Call => ({
  prompt: Int32Array.from(prompt),
  completion: Int32Array.from(completion),
  logprobs: Float32Array.from(completion, (_, i) => -0.1 * (i + 1)),
  reencoded
})

/** A sample as a trajectory, to read its tokens and action mask as a trainer would. */
const asTrajectory = (sample: _.Sample): Trajectory.Trajectory => ({
  env: 'e',
  seed: 0,
  groupId: 'g',
  segments: sample.segments,
  turns: [],
  turnRewards: [],
  won: false,
  truncated: false
})

describe('Capture.samples', () => {
  it("carries a constrained call's masks onto its action segment, and none onto an unconstrained one", () => {
    const masks = [Int32Array.of(1 << 3), Int32Array.of(1 << 9)]
    const [one] = _.samples([{ ...call([1, 2], [3, 9]), masks }, call([1, 2, 3, 9, 4], [6, 9])])
    expect(one!.segments[1]!.masks).toBe(masks)
    expect(one!.segments[3]!.masks).toBeUndefined()
    expect(
      Trajectory.validate({
        ...asTrajectory(one!),
        turns: [0, 1].map(() => ({ action: '', reward: 0, valid: true, parsed: true, score: 0, maxScore: 1 })),
        turnRewards: [0, 0]
      })._tag
    ).toBe('Right')
  })

  it('merges calls that extend the conversation into one sequence: prompt | action | observation | action', () => {
    const [one, ...rest] = _.samples([call([1, 2], [3, 9]), call([1, 2, 3, 9, 4, 5], [6, 9]), call([1, 2, 3, 9, 4, 5, 6, 9, 7], [8])])
    expect(rest).toHaveLength(0)
    expect(one!.calls).toBe(3)
    expect(one!.segments.map((s) => [s.kind, s.turn, Array.from(s.tokens)])).toEqual([
      ['prompt', 0, [1, 2]],
      ['action', 0, [3, 9]],
      ['observation', 0, [4, 5]],
      ['action', 1, [6, 9]],
      ['observation', 1, [7]],
      ['action', 2, [8]]
    ])
    const t = asTrajectory(one!)
    expect(Array.from(Trajectory.actionMask(t))).toEqual([0, 0, 1, 1, 0, 0, 1, 1, 0, 1])
    expect(Array.from(one!.segments[3]!.logprobs!)).toEqual([Math.fround(-0.1), Math.fround(-0.2)])
  })

  it('a call that rewrites the history starts a step-wise sample of its own; a later call extends the sample it continues', () => {
    const samples = _.samples([call([1, 2], [3, 9]), call([1, 7], [8, 9]), call([1, 2, 3, 9, 5], [6]), call([1, 7, 8, 9, 4], [2])])
    expect(samples.map((s) => [s.calls, s.callIndices])).toEqual([
      [2, [0, 2]],
      [2, [1, 3]]
    ])
    expect(samples.map((s) => Array.from(Trajectory.tokens(asTrajectory(s))))).toEqual([
      [1, 2, 3, 9, 5, 6],
      [1, 7, 8, 9, 4, 2]
    ])
  })

  it('each sample is the exact token stream of its last call, and its action mask covers exactly the completions', () => {
    const history = fc.array(
      fc.record({
        observation: fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 5 }),
        action: fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 4 })
      }),
      { minLength: 1, maxLength: 6 }
    )
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 5 }), history, (prompt, turns) => {
        let context = [...prompt]
        const calls: _.Call[] = []
        const actionTokens: number[] = []
        for (const turn of turns) {
          context = [...context, ...turn.observation]
          calls.push(call(calls.length === 0 ? prompt : context, turn.action))
          if (calls.length === 1) context = [...prompt]
          context = [...context, ...turn.action]
          actionTokens.push(...turn.action)
        }
        const samples = _.samples(calls)
        expect(samples).toHaveLength(1)
        const t = asTrajectory(samples[0]!)
        const last = calls[calls.length - 1]!
        expect(Array.from(Trajectory.tokens(t))).toEqual([...last.prompt, ...last.completion])
        const tokens = Trajectory.tokens(t)
        expect(Array.from(tokens).filter((_, i) => Trajectory.actionMask(t)[i] === 1)).toEqual(actionTokens)
      })
    )
  })
})
