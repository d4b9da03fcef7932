import * as tf from '@tensorflow/tfjs'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import type * as Backend from '../src/Backend.js'
import * as _ from '../src/Host.js'

describe('Host.start', () => {
  it('starts the named backend and notes it (and a faster one when wasm or cpu runs without a tfjs-node binding)', async () => {
    const notes: string[] = []
    const started = await _.start('cpu', (t) => void notes.push(t))()
    expect(E.isRight(started) && started.right.name).toBe('cpu')
    expect(tf.getBackend()).toBe('cpu')
    expect(notes[0]).toMatch(/^backend: cpu \(.+, 1 thread\)$/)
    expect(notes.slice(1).every((n) => /setup:tensorflow/.test(n))).toBe(true)
  })

  it("takes MTRL_BACKEND's without a flag, and notes nothing without note", async () => {
    const started = await _.start(undefined, undefined, { MTRL_BACKEND: 'cpu' })()
    expect(E.isRight(started) && started.right.name).toBe('cpu')
  })

  it('names an unknown backend, from the flag or the environment', async () => {
    expect(await _.start('gpu')()).toEqual(E.left({ _tag: 'UnknownBackend', name: 'gpu' }))
    expect(await _.start(undefined, undefined, { MTRL_BACKEND: 'tpu' })()).toEqual(E.left({ _tag: 'UnknownBackend', name: 'tpu' }))
  })
})

describe('Host.report', () => {
  const availability: Backend.Availability = {
    '@tensorflow/tfjs-node-gpu': { installed: false, reason: 'no CUDA' },
    '@tensorflow/tfjs-node': { installed: true, version: '4.22.0' },
    '@tensorflow/tfjs-backend-wasm': { installed: true, version: '4.22.0' }
  }
  const selected: Backend.Selected = { name: 'wasm', via: '@tensorflow/tfjs-backend-wasm', threads: 1 }

  it('reports the versions, the backend, the accelerators as given, and a WebGPU adapter or why none', () => {
    const r = _.report(selected, availability)
    expect(r).toMatchObject({
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      tfjs: tf.version.tfjs,
      backend: selected,
      accelerators: availability
    })
    expect(r.webgpu.available ? typeof r.webgpu.adapter : typeof r.webgpu.reason).toBe(r.webgpu.available ? 'object' : 'string')
  })

  it('rows: node, tfjs, backend, threads, adapter, the rows between, then one per provider', () => {
    const r: _.Report = {
      node: 'v20.0.0',
      platform: 'linux-x64',
      tfjs: '4.22.0',
      backend: selected,
      accelerators: availability,
      webgpu: { available: false, reason: 'no adapter' }
    }
    expect(_.rows(r, [['extra', 'x']])).toEqual([
      ['node', 'v20.0.0 (linux-x64)'],
      ['@tensorflow/tfjs', '4.22.0'],
      ['backend', 'wasm via @tensorflow/tfjs-backend-wasm'],
      ['threads', '1'],
      ['webgpu adapter', 'none: no adapter'],
      ['extra', 'x'],
      ['@tensorflow/tfjs-node-gpu', 'not available: no CUDA'],
      ['@tensorflow/tfjs-node', 'available (4.22.0)'],
      ['@tensorflow/tfjs-backend-wasm', 'available (4.22.0)']
    ])
  })
})
