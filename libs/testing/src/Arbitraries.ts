/**
 * fast-check arbitraries for the core types, for property tests across libs.
 *
 * @since 0.1.0
 */
import type { Trajectory } from '@mtrl/core'
import fc from 'fast-check'

/** Options for {@link trajectory}. */
export interface TrajectoryOptions {
  readonly maxTurns?: number
  readonly maxSegmentTokens?: number
  readonly vocab?: number
}

/**
 * A well-formed trajectory: a prompt, then per turn an action (with log-probs) and, except
 * possibly after the last, an observation.
 *
 * @category arbitraries
 * @since 0.1.0
 */
export const trajectory = (options: TrajectoryOptions = {}): fc.Arbitrary<Trajectory.Trajectory> => {
  const { maxTurns = 5, maxSegmentTokens = 6, vocab = 50 } = options
  const tokens = fc.array(fc.integer({ min: 0, max: vocab - 1 }), { minLength: 1, maxLength: maxSegmentTokens })
  const turnArb = fc.record({
    action: tokens,
    observation: tokens,
    reward: fc.double({ min: -1, max: 1, noNaN: true }),
    valid: fc.boolean(),
    parsed: fc.boolean()
  })
  return fc
    .record({
      prompt: tokens,
      turns: fc.array(turnArb, { minLength: 1, maxLength: maxTurns }),
      won: fc.boolean(),
      truncated: fc.boolean(),
      seed: fc.nat(),
      group: fc.nat(3),
      finalObservation: fc.boolean()
    })
    .map(({ prompt, turns, won, truncated, seed, group, finalObservation }) => {
      const segments: Trajectory.Segment[] = [{ kind: 'prompt', turn: 0, tokens: Int32Array.from(prompt) }]
      turns.forEach((turn, k) => {
        segments.push({
          kind: 'action',
          turn: k,
          tokens: Int32Array.from(turn.action),
          logprobs: Float32Array.from(turn.action.map((_, i) => -0.1 * (i + 1)))
        })
        if (k < turns.length - 1 || finalObservation) segments.push({ kind: 'observation', turn: k, tokens: Int32Array.from(turn.observation) })
      })
      let score = 0
      return {
        env: 'arbitrary',
        seed,
        groupId: `g${group}`,
        segments,
        turns: turns.map((turn) => {
          score += turn.reward
          return { action: `a${turn.action.join('-')}`, reward: turn.reward, valid: turn.valid, parsed: turn.parsed, score, maxScore: 1 }
        }),
        turnRewards: turns.map((turn) => turn.reward),
        won,
        truncated
      }
    })
}

/**
 * A seed as environments take it.
 *
 * @category arbitraries
 * @since 0.1.0
 */
export const seed: fc.Arbitrary<number> = fc.integer({ min: 0, max: 2 ** 31 - 1 })
