/**
 * Hand-made trajectories for reward tests (test-only, not a test file).
 */
import type { Trajectory } from '@mtrl/core'

/** A trajectory with one action segment per turn; `turns` give reward (score delta), valid, parsed. */
export const episode = (
  steps: ReadonlyArray<{ readonly reward: number; readonly valid?: boolean; readonly parsed?: boolean }>,
  options: { readonly won: boolean; readonly maxScore?: number; readonly truncated?: boolean }
): Trajectory.Trajectory => {
  let score = 0
  return {
    env: 'fixture',
    seed: 0,
    groupId: 'g',
    segments: steps.map((_, k) => ({ kind: 'action' as const, turn: k, tokens: Int32Array.of(k) })),
    turns: steps.map((step, k) => {
      score += step.reward
      return { action: `a${k}`, reward: step.reward, valid: step.valid ?? true, parsed: step.parsed ?? true, score, maxScore: options.maxScore ?? 1 }
    }),
    turnRewards: steps.map((step) => step.reward),
    won: options.won,
    truncated: options.truncated ?? false
  }
}

export const total = (rewards: ReadonlyArray<number>): number => rewards.reduce((a, b) => a + b, 0)
