import { expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import { beforeAll, describe, expect, it } from 'vitest'
import * as ModelConfig from '../src/ModelConfig.js'
import * as Policy from '../src/Policy.js'
import * as _ from '../src/Scoring.js'

beforeAll(async () => {
  await TestBackend.use('cpu')
})

const config = ModelConfig.make({ vocab: 40, dModel: 16, layers: 1, heads: 2, ffn: 32, maxLen: 32 })
const maskOf = (ids: ReadonlyArray<number>): Int32Array => {
  const out = new Int32Array(2)
  for (const id of ids) out[id >> 5]! |= 1 << (id & 31)
  return out
}
const rows = [
  [1, 4, 9, 2, 0],
  [3, 3, 8, 35, 5]
]
const allowedIds = [9, 11, 20, 35]
// row 0 position 2 (token 9) and row 1 position 3 (token 35) were drawn under the mask
const allowed = [[{ position: 2, mask: maskOf(allowedIds) }], [{ position: 3, mask: maskOf(allowedIds) }]]
const temperature = 0.7

describe('Scoring with allowed-token masks', () => {
  it("gives the masked distribution's log-prob and entropy at the constrained positions (by hand from the full distribution), plain and chunked, and leaves the rest alone", async () => {
    const policy = Policy.make({ ...config, logitSoftcap: 3 }, 4)
    await expectNoLeak(() => {
      tf.tidy(() => {
        const score = (ids: number[][], options: _.Options = {}) => {
          const s = _.tokenLogprobs(policy, options)(tf.tensor2d(ids, [2, 5], 'int32'), temperature)
          return { logprobs: s.logprobs.arraySync(), entropy: s.entropy.arraySync() }
        }
        const plain = score(rows)
        // log p(v | prefix) for every v of the vocabulary at one position: the full distribution
        const full = (b: number, t: number): number[] =>
          Array.from({ length: config.vocab }, (_v, v) => score(rows.map((r, i) => (i === b ? r.map((x, j) => (j === t ? v : x)) : r))).logprobs[b]![t]!)
        const fulls = [full(0, 2), full(1, 3)]
        for (const options of [{}, { chunkRows: 3 }, { chunkRows: 3, entropy: false }]) {
          const masked = score(rows, { ...options, allowed })
          for (const [k, [b, t]] of (
            [
              [0, 2],
              [1, 3]
            ] as const
          ).entries()) {
            const lp = fulls[k]!
            const norm = Math.log(allowedIds.reduce((s, v) => s + Math.exp(lp[v]!), 0))
            const expected = lp[rows[b]![t]!]! - norm
            expect(Math.abs(expected - lp[rows[b]![t]!]!)).toBeGreaterThan(0.5)
            expect(masked.logprobs[b]![t]).toBeCloseTo(expected, 5)
            const entropy = -allowedIds.reduce((s, v) => s + Math.exp(lp[v]! - norm) * (lp[v]! - norm), 0)
            if (options.entropy !== false) expect(masked.entropy[b]![t]).toBeCloseTo(entropy, 5)
          }
          // unconstrained positions: as without masks
          masked.logprobs.forEach((row, b) =>
            row.forEach((x, t) => {
              if (!((b === 0 && t === 2) || (b === 1 && t === 3))) expect(x).toBeCloseTo(plain.logprobs[b]![t]!, 6)
            })
          )
        }
      })
    })
  })

  it('the gradient through masked scores is finite and matches the chunked path; bad positions are refused by name', async () => {
    const policy = Policy.make(config, 5)
    const variables = Policy.trainableVariables(policy)
    await expectNoLeak(() => {
      tf.tidy(() => {
        const ids = tf.tensor2d(rows, [2, 5], 'int32')
        const run = (options: _.Options) => {
          const { value, grads } = tf.variableGrads(() => {
            const s = _.tokenLogprobs(policy, { ...options, allowed })(ids, temperature)
            return tf.add(tf.sum(s.logprobs), tf.sum(tf.mul(s.entropy, 0.3))) as tf.Scalar
          }, variables)
          return [value, ...variables.map((v) => grads[v.name]!)]
        }
        const plain = run({})
        const chunked = run({ chunkRows: 3 })
        plain.forEach((g, i) => {
          expect(tf.all(tf.isFinite(g)).dataSync()[0]).toBe(1)
          expect(tf.max(tf.abs(tf.sub(g, chunked[i]!))).dataSync()[0]).toBeLessThan(1e-5)
        })
        expect(() => _.tokenLogprobs(policy, { allowed: [[{ position: 5, mask: maskOf([1]) }]] })(ids)).toThrow(/allowed\[0\] position 5/)
      })
    })
  })
})
