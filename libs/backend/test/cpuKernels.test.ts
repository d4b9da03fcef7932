/**
 * The cpu backend's replaced kernels give upstream's bits (@tensorflow/tfjs-backend-cpu 4.22's
 * own kernel is the reference): NaN where it is NaN, -0 where it is -0, on rows of any segment,
 * ids outside the range, NaN and infinities.
 */
import * as tf from '@tensorflow/tfjs'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import * as Backend from '../src/Backend.js'
import * as _ from '../src/internal/cpuKernels.js'

beforeAll(async () => {
  await Backend.select('cpu')()
})

/** The upstream kernel's result for the same inputs, read and freed. */
const upstream = (x: tf.Tensor, ids: tf.Tensor1D, numSegments: number): Float32Array => {
  const config = _.upstreamSegmentSum()
  if (config === undefined) throw new Error('the cpu kernel was not replaced')
  const backend = tf.backend()
  const info = config.kernelFunc({ inputs: { x, segmentIds: ids }, backend, attrs: { numSegments } }) as tf.TensorInfo
  const values = backend.readSync(info.dataId) as Float32Array
  backend.disposeData(info.dataId)
  return values
}

const same = (a: Float32Array, b: Float32Array): boolean =>
  a.length === b.length && a.every((v, i) => Object.is(v, b[i]) || (Number.isNaN(v) && Number.isNaN(b[i])))

const special = fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 0)
const value = fc.oneof({ weight: 12, arbitrary: fc.float({ noDefaultInfinity: true, noNaN: true, min: -1e3, max: 1e3 }) }, { weight: 1, arbitrary: special })

describe('UnsortedSegmentSum on cpu', () => {
  it('is the kernel tf.unsortedSegmentSum runs, and gives upstream’s values bit for bit', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 0, max: 9 }),
        fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 0, maxLength: 2 }),
        fc.infiniteStream(value),
        fc.infiniteStream(fc.integer({ min: -2, max: 7 })),
        (numSegments, rows, inner, values, idStream) => {
          const shape = [rows, ...inner]
          const size = shape.reduce((a, b) => a * b, 1)
          const data = Float32Array.from(values.take(size))
          const idData = Int32Array.from(idStream.take(rows))
          const before = tf.memory().numTensors
          const x = tf.tensor(data, shape, 'float32')
          const ids = tf.tensor1d(idData, 'int32')
          const fast = tf.unsortedSegmentSum(x, ids, numSegments)
          expect(fast.shape).toEqual([numSegments, ...inner])
          const ok = same(fast.dataSync() as Float32Array, upstream(x, ids, numSegments))
          tf.dispose([x, ids, fast])
          expect(tf.memory().numTensors).toBe(before)
          return ok
        }
      ),
      { numRuns: 300 }
    )
  })

  it('is the gradient of gather (an embedding lookup), as upstream computes it', () => {
    const table = tf.randomNormal([50, 4], 0, 1, 'float32', 1)
    const ids = tf.tensor1d([3, 7, 3, 49, 0, 7, 7], 'int32')
    const grad = tf.grad((t: tf.Tensor) => tf.gather(t, ids).square().sum())(table)
    const rows = tf.mul(tf.gather(table, ids), 2)
    expect(same(grad.dataSync() as Float32Array, upstream(rows, ids, 50))).toBe(true)
    expect(Array.from(grad.dataSync().slice(3 * 4, 4 * 4)).every((v) => v !== 0)).toBe(true)
    tf.dispose([table, ids, grad, rows])
  })
})
