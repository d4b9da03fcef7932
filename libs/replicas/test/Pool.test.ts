import { Optimizer } from '@mtrl/optim'
import { TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Pool.js'
import { flatten } from '../src/Task.js'
import buildLinear, { linearLoss, type LinearShard } from './fixtures/linearTask.js'

beforeAll(() => TestBackend.use('cpu'))

const taskUrl = new URL('./fixtures/linearTask.ts', import.meta.url).href
const initUrl = new URL('./fixtures/replicaInit.ts', import.meta.url).href

/** A batch of 7 rows of 3 inputs, cut into shards of the given row counts. */
const xs = [
  [1, 2, 3],
  [0, 1, 0],
  [2, -1, 1],
  [1, 1, 1],
  [-2, 0, 3],
  [0.5, 0.5, -1],
  [3, 0, 0]
]
const ys = [1, -1, 2, 0.5, 3, -2, 1]
const shardsOf = (cuts: ReadonlyArray<number>): LinearShard[] => {
  let at = 0
  return cuts.map((n) => {
    const shard = { xs: xs.slice(at, at + n), ys: ys.slice(at, at + n), scale: ys.length }
    at += n
    return shard
  })
}

describe('Pool', () => {
  it('split: a partition of the rows into min(parts, rows) non-empty groups, each within one row of the others in tokens', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 500 }), { minLength: 1, maxLength: 16 }), fc.integer({ min: 1, max: 4 }), (lengths, parts) => {
        const groups = _.split(lengths, parts)
        expect(groups.length).toBe(Math.min(parts, lengths.length))
        expect(groups.every((g) => g.length > 0)).toBe(true)
        expect(groups.flat().sort((a, b) => a - b)).toEqual(lengths.map((_, i) => i))
        const tokens = groups.map((g) => g.reduce((n, i) => n + lengths[i]!, 0))
        // longest-first greedy: the fullest group exceeds the emptiest by at most one row
        expect(Math.max(...tokens) - Math.min(...tokens)).toBeLessThanOrEqual(Math.max(...lengths))
      })
    )
  })

  it("gradients: shards on the caller and two workers add up to the whole batch's gradient, at the caller's weights", async () => {
    const local = buildLinear({ inputs: 3 })
    const [w, b] = local.variables['fit']!
    // weights the workers have never seen: each request carries them
    w!.assign(tf.tensor2d([[0.3], [-0.2], [0.1]]))
    b!.assign(tf.tensor1d([0.05]))
    const pool = await _.start({ url: taskUrl, data: { inputs: 3 } }, 2)
    try {
      expect(pool.size).toBe(2)
      expect(pool.sizes).toEqual({ fit: 4, broken: 4 })
      const whole = Optimizer.gradients([w!, b!], () => linearLoss(w!, b!, shardsOf([7])[0]!))
      const split = _.gradients(pool, 'fit', [w!, b!], shardsOf([3, 2, 2]), (shard) => linearLoss(w!, b!, shard))
      expect(Array.from(flatten(split.grads))).toEqual(Array.from(flatten(whole.grads)).map((g) => expect.closeTo(g, 5)))
      // the answers' auxiliary scalars are added up too
      expect(split.aux['rows']).toBe(7)
      expect(split.aux['sum']).toBeCloseTo(whole.aux['sum']!, 5)
      // and the gradient is not zero (so equality is not two empty answers)
      expect(Math.max(...Array.from(flatten(whole.grads)).map(Math.abs))).toBeGreaterThan(0.1)
      tf.dispose([...whole.grads, ...split.grads])
    } finally {
      await pool.dispose()
      tf.dispose([w!, b!])
    }
  }, 60_000)

  it('gradients without a pool is the caller alone; more shards than replicas is an error', () => {
    const local = buildLinear({ inputs: 3 })
    const [w, b] = local.variables['fit']!
    const alone = _.gradients(undefined, 'fit', [w!, b!], shardsOf([7]), (shard) => linearLoss(w!, b!, shard))
    expect(alone.aux['rows']).toBe(7)
    expect(() => _.gradients(undefined, 'fit', [w!, b!], shardsOf([3, 4]), (shard) => linearLoss(w!, b!, shard))).toThrow(/2 shards for 1 replicas/)
    tf.dispose([...alone.grads, w!, b!])
  })

  it("a replica's error reaches the caller as an exception naming the replica and its message", async () => {
    const pool = await _.start({ url: taskUrl, data: { inputs: 3 } }, 1)
    try {
      const shard = shardsOf([7])[0]!
      expect(() => _.dispatch(pool, 'broken', new Float32Array(4), [shard])()).toThrow(/replica 1 failed: this part always fails/)
      expect(() => _.dispatch(pool, 'nothing', new Float32Array(4), [shard])()).toThrow(/replica 1 failed: .*no loss part nothing/)
      expect(() => _.dispatch(pool, 'fit', new Float32Array(3), [shard])()).toThrow(/3 weights for 4 values/)
      // the replica still answers after its errors
      expect(_.dispatch(pool, 'fit', new Float32Array(4), [shard])()[0]!.aux['rows']).toBe(7)
    } finally {
      await pool.dispose()
    }
  }, 60_000)

  it('each worker runs the init module first (a failing init fails start with its message)', async () => {
    const task = { url: taskUrl, data: { inputs: 3 } }
    const pool = await _.start(task, 2, { url: initUrl, data: { backend: 'cpu' } })
    expect(pool.backends).toEqual(['cpu', 'cpu'])
    await pool.dispose()
    await expect(_.start(task, 1, { url: initUrl, data: { backend: 'cpu', fail: 'no such backend here' } })).rejects.toThrow(
      /failed to start: no such backend here/
    )
  }, 60_000)

  it('start rejects a negative worker count, and a task module without a default export', async () => {
    await expect(_.start({ url: taskUrl, data: { inputs: 3 } }, -1)).rejects.toThrow(/non-negative integer/)
    await expect(_.start({ url: initUrl.replace('replicaInit', 'noDefault'), data: {} }, 1)).rejects.toThrow(/failed to start: .*has no default export/)
  }, 60_000)
})
