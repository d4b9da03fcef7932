import * as tf from '@tensorflow/tfjs'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Backend.js'

describe('Backend', () => {
  it('hints at the tensorflow backend only when wasm or cpu runs and no tfjs-node binding is set up', () => {
    const missing: _.Availability = {
      '@tensorflow/tfjs-node-gpu': { installed: false, reason: '' },
      '@tensorflow/tfjs-node': { installed: false, reason: '' },
      '@tensorflow/tfjs-backend-wasm': { installed: true, version: '4.22.0' }
    }
    const present: _.Availability = { ...missing, '@tensorflow/tfjs-node': { installed: true, version: '4.22.0' } }
    const on = (name: _.Selected['name']): _.Selected => ({ name, via: name, threads: 1 })
    expect(_.fasterHint(on('wasm'), missing)).toMatch(/npm run setup:tensorflow/)
    expect(_.fasterHint(on('cpu'), missing)).toMatch(/npm run setup:tensorflow/)
    expect(_.fasterHint(on('wasm'), present)).toBeUndefined()
    expect(_.fasterHint(on('tensorflow'), missing)).toBeUndefined()
  })

  it('probing what is installed never changes the active backend (a tfjs-node binding, when built, selects itself on load)', async () => {
    await _.select('cpu')()
    const probed = _.availability()
    expect(tf.getBackend()).toBe('cpu')
    // the probe did load the binding where it is built: the check above is the one that bites there
    if (probed['@tensorflow/tfjs-node'].installed) expect(tf.engine().registryFactory['tensorflow']).toBeDefined()
  })

  it('selects cpu by name', async () => {
    const result = await _.select('cpu')()
    expect(result).toEqual(E.right({ name: 'cpu', via: expect.any(String), threads: 1 }))
    expect(tf.getBackend()).toBe('cpu')
  })

  it('selects wasm by name and computes on it', async () => {
    const result = await _.select('wasm')()
    expect(E.isRight(result) && result.right.name).toBe('wasm')
    expect(tf.getBackend()).toBe('wasm')
    const y = tf.tidy(() => tf.matMul(tf.tensor2d([[1, 2]]), tf.tensor2d([[3], [4]])))
    expect(Array.from(y.dataSync())).toEqual([11])
    y.dispose()
  })

  it('auto takes an available backend', async () => {
    const result = await _.select('auto')()
    expect(E.isRight(result)).toBe(true)
    if (E.isRight(result)) expect(tf.getBackend()).toBe(result.right.name)
  })

  it('a forced unavailable tensorflow backend is an error, not a fallback', async () => {
    const available = _.availability()
    const hasNode = available['@tensorflow/tfjs-node'].installed || available['@tensorflow/tfjs-node-gpu'].installed
    const result = await _.select('tensorflow')()
    if (hasNode) {
      expect(E.isRight(result)).toBe(true)
    } else {
      expect(E.isLeft(result) && _.message(result.left)).toMatch(/not available/)
    }
  })

  it('rejects unknown names', () => {
    expect(_.parseName('gpu')).toEqual({ _tag: 'UnknownBackend', name: 'gpu' })
    expect(_.parseName('wasm')).toBe('wasm')
    expect(_.fromEnvironment({})).toBe('auto')
  })

  it('selects what MTRL_BACKEND names, and an unknown name is a Left', async () => {
    const cpu = await _.selectFromEnvironment({ MTRL_BACKEND: 'cpu' })()
    expect(E.isRight(cpu) && cpu.right.name).toBe('cpu')
    const bad = await _.selectFromEnvironment({ MTRL_BACKEND: 'gpu' })()
    expect(E.isLeft(bad) && bad.left).toEqual({ _tag: 'UnknownBackend', name: 'gpu' })
  })
})
