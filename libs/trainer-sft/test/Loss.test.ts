import { Batch } from '@mtrl/rollout'
import { Arbitraries, expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Loss.js'

beforeAll(() => TestBackend.use('cpu'))

describe('Loss', () => {
  it('observation and prompt tokens never receive loss (gradient is zero off the action mask)', async () => {
    await expectNoLeak(() =>
      fc.assert(
        fc.property(fc.array(Arbitraries.trajectory(), { minLength: 1, maxLength: 4 }), (trajectories) => {
          const batch = Batch.make({ pad: 0 })(trajectories)
          const init = tf.randomNormal([batch.batch, batch.time])
          const logprobs = tf.variable(init)
          init.dispose()
          const mask = tf.tensor2d(batch.actionMask, [batch.batch, batch.time])
          const { value, grads } = tf.variableGrads(() => _.actionLoss(logprobs, mask), [logprobs])
          const g = grads[logprobs.name]!.dataSync()
          // every position that came from a prompt or observation segment (or padding) has zero gradient
          trajectories.forEach((trajectory, b) => {
            const kinds = trajectory.segments.flatMap((s) => Array.from(s.tokens, () => s.kind))
            for (let t = 0; t < batch.time; t++) {
              const kind = kinds[t]
              if (kind === 'action') expect(g[b * batch.time + t]).not.toBe(0)
              else expect(g[b * batch.time + t] === 0).toBe(true)
            }
          })
          tf.dispose([logprobs, mask, value, ...Object.values(grads)])
        }),
        { numRuns: 50 }
      )
    )
  })

  it('contextMask marks exactly the predicted non-action tokens of each row (not the first, not padding)', () => {
    fc.assert(
      fc.property(fc.array(Arbitraries.trajectory(), { minLength: 1, maxLength: 4 }), (trajectories) => {
        const batch = Batch.make({ pad: 0 })(trajectories)
        const mask = _.contextMask(batch)
        trajectories.forEach((trajectory, b) => {
          const kinds = trajectory.segments.flatMap((s) => Array.from(s.tokens, () => s.kind))
          for (let t = 0; t < batch.time; t++) {
            const expected = t > 0 && t < kinds.length && kinds[t] !== 'action' ? 1 : 0
            expect(mask[b * batch.time + t]).toBe(expected)
          }
        })
      }),
      { numRuns: 100 }
    )
  })
})
