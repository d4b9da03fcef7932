import * as tf from '@tensorflow/tfjs'
import { beforeAll, describe, expect, it } from 'vitest'
import * as Backend from '../src/Backend.js'
import * as _ from '../src/SelfTest.js'

beforeAll(async () => {
  const selected = await Backend.select('cpu')()
  if (selected._tag === 'Left') throw new Error(Backend.message(selected.left))
})

describe('SelfTest', () => {
  it('trains the tiny model on the active backend: the loss goes down, no tensor is left behind', () => {
    const before = tf.memory().numTensors
    const result = _.run(20)
    expect(tf.memory().numTensors).toBe(before)
    expect(result).toMatchObject({ backend: 'cpu', steps: 20 })
    expect(result.after).toBeLessThan(result.before)
    expect(_.run(0).steps).toBe(1)
  })
})
