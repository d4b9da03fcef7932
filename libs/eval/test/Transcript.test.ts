import type { Trajectory } from '@mtrl/core'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Transcript.js'

const decode = (ids: ArrayLike<number>): string => Array.from(ids, (i) => `w${i}`).join(' ')
const turn = (action: string, valid: boolean): Trajectory.Turn => ({ action, reward: 0, valid, parsed: true, score: 0, maxScore: 1 })

describe('Transcript', () => {
  it('decodes the prompt and pairs each action with the observation after it', () => {
    const episode: Trajectory.Trajectory = {
      env: 'corridor',
      seed: 7,
      groupId: 'corridor:7',
      segments: [
        { kind: 'prompt', turn: 0, tokens: Int32Array.of(1, 2) },
        { kind: 'action', turn: 0, tokens: Int32Array.of(3) },
        { kind: 'observation', turn: 0, tokens: Int32Array.of(4) },
        { kind: 'action', turn: 1, tokens: Int32Array.of(5) }
      ],
      turns: [turn('left', true), turn('jump', false)],
      turnRewards: [0, 1],
      won: true,
      truncated: false
    }
    expect(_.make(decode)(episode)).toEqual({
      env: 'corridor',
      seed: 7,
      won: true,
      truncated: false,
      prompt: 'w1 w2',
      turns: [
        { action: 'left', valid: true, reward: 0, observation: 'w4' },
        { action: 'jump', valid: false, reward: 1, observation: '' }
      ]
    })
  })
})
