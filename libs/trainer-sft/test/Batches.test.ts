import { Rng, Trajectory } from '@mtrl/core'
import { Arbitraries } from '@mtrl/testing'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Batches.js'

describe('Batches', () => {
  it('epochBatches partitions the samples; grouped by length, one megabatch of full batches never pads more than random batches', () => {
    fc.assert(
      fc.property(
        fc.array(Arbitraries.trajectory(), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 0, max: 1000 }),
        (samples, batchSize, seed) => {
          const padding = (batches: ReadonlyArray<ReadonlyArray<Trajectory.Trajectory>>): number =>
            batches.reduce((sum, b) => sum + b.length * Math.max(...b.map(Trajectory.length)) - b.reduce((n, t) => n + Trajectory.length(t), 0), 0)
          for (const groupByLength of [false, true]) {
            const batches = _.epochBatches({ batchSize, groupByLength }, Rng.make(seed))(samples)
            expect(batches.every((b) => b.length >= 1 && b.length <= batchSize)).toBe(true)
            expect(new Set(batches.flat())).toEqual(new Set(samples))
            expect(batches.flat().length).toBe(samples.length)
          }
          if (samples.length <= batchSize * 16 && samples.length % batchSize === 0) {
            const grouped = _.epochBatches({ batchSize, groupByLength: true }, Rng.make(seed))(samples)
            const plain = _.epochBatches({ batchSize, groupByLength: false }, Rng.make(seed))(samples)
            expect(padding(grouped)).toBeLessThanOrEqual(padding(plain))
          }
        }
      ),
      { numRuns: 100 }
    )
  })
})
