import type { Trajectory } from '@mtrl/core'
import { Batch } from '@mtrl/rollout'
import { describe, expect, it } from 'vitest'
import { exploredMask, trainingBatch } from '../../src/internal/explored.js'

const turn = (explored: boolean): Trajectory.Turn => ({
  action: 'a',
  reward: 0,
  valid: true,
  parsed: true,
  score: 0,
  maxScore: 1,
  ...(explored ? { explored: true } : {})
})

// prompt (2 tokens) | action turn 0 (2) | observation (1) | action turn 1 (2)
const sample = (flags: [boolean, boolean]): Trajectory.Trajectory => ({
  env: 'toy',
  seed: 1,
  groupId: 'toy:1',
  segments: [
    { kind: 'prompt', turn: 0, tokens: Int32Array.of(1, 2) },
    { kind: 'action', turn: 0, tokens: Int32Array.of(3, 6), logprobs: Float32Array.of(-0.1, -0.2) },
    { kind: 'observation', turn: 0, tokens: Int32Array.of(4) },
    { kind: 'action', turn: 1, tokens: Int32Array.of(5, 6), logprobs: Float32Array.of(-0.3, -0.4) }
  ],
  turns: [turn(flags[0]), turn(flags[1])],
  turnRewards: [0, 1],
  won: true,
  truncated: false
})

describe('explored', () => {
  it('marks the action tokens of explored turns, row by row at the batch width, and nothing when no turn was explored', () => {
    const samples = [sample([true, false]), sample([false, true])]
    expect(Array.from(exploredMask(samples, 8)!)).toEqual([0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0])
    expect(exploredMask([sample([false, false])], 7)).toBeUndefined()
  })

  it('positive credit drops exactly the explored tokens whose advantage is not positive; signed credit keeps the batch', () => {
    const samples = [sample([true, true])]
    const batch = Batch.make({ pad: 0 })(samples)
    const explored = exploredMask(samples, batch.time)!
    //                           p  p  a0   a0  o  a1   a1
    const advantages = Float32Array.of(9, 9, 0.5, -0.5, 9, 0, 2)
    expect(Array.from(trainingBatch('positive', batch, explored, advantages).actionMask)).toEqual([0, 0, 1, 0, 0, 0, 1])
    expect(trainingBatch('signed', batch, explored, advantages)).toBe(batch)
    // sampled actions keep every token whatever their advantage
    const mixed = [sample([false, true])]
    const mixedBatch = Batch.make({ pad: 0 })(mixed)
    expect(Array.from(trainingBatch('positive', mixedBatch, exploredMask(mixed, mixedBatch.time)!, advantages).actionMask)).toEqual([0, 0, 1, 1, 0, 0, 1])
  })
})
