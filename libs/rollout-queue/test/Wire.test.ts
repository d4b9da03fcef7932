import { Decode } from '@mtrl/core'
import { Rollout } from '@mtrl/rollout'
import * as fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Wire.js'

const roundTrip = <A, O>(codec: { encode: (a: A) => O; decode: (u: unknown) => E.Either<unknown, A> }, a: A): A => {
  const decoded = codec.decode(JSON.parse(JSON.stringify(codec.encode(a))))
  if (E.isLeft(decoded)) throw new Error('did not decode')
  return decoded.right
}

describe('Wire', () => {
  it('carries token ids and log-probs bit for bit, -0 and subnormals included', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -2147483648, max: 2147483647 })), fc.array(fc.float({ noNaN: true })), (ids, lps) => {
        const tokens = Int32Array.from(ids)
        const logprobs = Float32Array.from(lps)
        expect(roundTrip(_.Int32ArrayFromBase64, tokens)).toEqual(tokens)
        const back = roundTrip(_.Float32ArrayFromBase64, logprobs)
        expect(Array.from(back, (x) => Object.is(x, -0))).toEqual(Array.from(logprobs, (x) => Object.is(x, -0)))
        expect(new Uint8Array(back.buffer)).toEqual(new Uint8Array(logprobs.buffer))
      })
    )
  })

  it('round-trips an episode job and a job result', () => {
    const job: _.Job = {
      version: 1,
      policy: { model: 'mtrl:model:abc', weights: 'mtrl:weights:r-0' },
      env: { kind: 'textworld', settings: 'w2-o3-q4' },
      rollout: Rollout.defaultOptions,
      contextLength: 512,
      groupSize: 4,
      seeds: [1, 2],
      firstSlot: 8,
      key: 4294967295
    }
    expect(roundTrip(_.Job, job)).toEqual(job)
    const trajectory = {
      env: 'tw',
      seed: 1,
      groupId: 'tw:1',
      segments: [
        { kind: 'prompt' as const, turn: 0, tokens: Int32Array.of(1, 2, 3) },
        { kind: 'action' as const, turn: 0, tokens: Int32Array.of(4, 5), logprobs: Float32Array.of(-0.5, -1e-30) }
      ],
      turns: [{ action: 'go', reward: 0, valid: true, parsed: true, score: 0, maxScore: 1 }],
      turnRewards: [0],
      won: false,
      truncated: true
    }
    const result: _.JobResult = {
      episodes: [{ trajectory, samples: [trajectory], slot: 9, index: 0, ending: 'turnLimit' }],
      counters: { generatedTokens: 2, contextTokens: 3, cutOff: 1, hackingPairs: 0, pairs: 0, seconds: 0.25 },
      worker: 'host:1'
    }
    expect(roundTrip(_.JobResult, result)).toEqual(result)
  })

  it('rejects a malformed message with the path of the bad field', () => {
    const decoded = Decode.decode(
      'result',
      _.JobResult
    )({ episodes: [{ trajectory: { segments: [{ kind: 'action', turn: 0, tokens: 'abc' }] } }], counters: {}, worker: 'w' })
    expect(E.isLeft(decoded) && Decode.formatError(decoded.left)).toMatch(/episodes\.0\.trajectory/)
  })
})
