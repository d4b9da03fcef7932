import type { Trajectory } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
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

  it('parses a transcripts file: blank lines skipped, a bad line named by file:line', () => {
    const line = { env: 'corridor', seed: 7, won: true, truncated: false, prompt: 'p', turns: [{ action: 'left', valid: true, reward: 1, observation: 'end' }] }
    expect(_.parse('t.jsonl', `${JSON.stringify(line)}\n\n${JSON.stringify({ ...line, seed: 8 })}\n`)).toEqual(E.right([line, { ...line, seed: 8 }]))
    expect(_.parse('t.jsonl', `${JSON.stringify(line)}\n{oops`)).toEqual(
      E.left('t.jsonl:2: not a JSON line (expected a transcript of mtrl eval --transcripts)')
    )
    const bad = _.parse('t.jsonl', JSON.stringify({ ...line, seed: 'x' }))
    expect(E.isLeft(bad) && bad.left).toMatch(/transcript \(t\.jsonl:1\)[^]*seed: expected number, got "x"/)
  })
})
