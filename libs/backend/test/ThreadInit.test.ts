import * as tf from '@tensorflow/tfjs'
import { describe, expect, it } from 'vitest'
import activate, * as _ from '../src/ThreadInit.js'

describe('ThreadInit', () => {
  it('init names this module (from sources) and the backend; its default export activates that backend', async () => {
    const init = _.init('cpu')
    expect(init.data).toBe('cpu')
    expect(init.url).toBe(new URL('../src/ThreadInit.ts', import.meta.url).href)
    const loaded = (await import(init.url)) as { default: (name: string) => Promise<void> }
    await loaded.default('wasm')
    expect(tf.getBackend()).toBe('wasm')
    await activate('cpu')
    expect(tf.getBackend()).toBe('cpu')
  })
})
