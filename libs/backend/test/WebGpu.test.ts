import * as tf from '@tensorflow/tfjs'
import * as E from 'fp-ts/lib/Either.js'
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import * as Backend from '../src/Backend.js'
import * as _ from '../src/WebGpu.js'

// @mtrl/testing's Services depends on this package; the same check, here without it
const found = _.probe()
const tag = '[needs webgpu]'
const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..', '..', '..')

afterAll(async () => {
  await tf.setBackend('cpu')
})

describe('WebGpu', () => {
  it('names an adapter: vendor, architecture, description, and whether it is software', () => {
    const base = { vendor: 'nvidia', architecture: 'hopper', device: '', description: 'NVIDIA H100 80GB HBM3', software: false }
    expect(_.describe(base)).toBe('nvidia hopper (NVIDIA H100 80GB HBM3), hardware')
    expect(_.describe({ ...base, vendor: 'google', architecture: 'swiftshader', description: '', device: 'swiftshader-device', software: true })).toBe(
      'google swiftshader (swiftshader-device), software'
    )
    expect(_.describe({ ...base, vendor: '', architecture: '', description: '' })).toBe('unnamed adapter, hardware')
  })

  it('auto never takes a software adapter', async () => {
    const result = await Backend.select('auto')()
    expect(E.isRight(result)).toBe(true)
    if (E.isRight(result) && result.right.name === 'webgpu') expect(result.right.adapter?.software).toBe(false)
    if (typeof found !== 'string' && found.software) expect(E.isRight(result) && result.right.name).not.toBe('webgpu')
  })

  it('--backend webgpu on a machine without an adapter is an error that says why', () => {
    // a process whose Vulkan loader finds no driver: Dawn has no adapter to give
    const out = spawnSync(process.execPath, ['--conditions=@mtrl/source', '--import', 'tsx', join(here, 'fixtures', 'selectWebGpu.ts')], {
      cwd: root,
      env: { ...process.env, VK_ICD_FILENAMES: '/nonexistent.json', VK_DRIVER_FILES: '/nonexistent.json' },
      encoding: 'utf8',
      timeout: 60_000
    })
    if (process.platform === 'linux') expect(out.stdout).toMatch(/^backend "webgpu" is not available: webgpu: .*(no WebGPU adapter|not installed)/)
  })

  it.runIf(typeof found !== 'string')(`selects the adapter by name, computes, reads synchronously and frees what it made ${tag}`, async () => {
    const result = await Backend.select('webgpu')()
    expect(E.isRight(result) && result.right.adapter).toEqual(found)
    expect(tf.getBackend()).toBe('webgpu')
    const before = tf.memory().numTensors
    const x = [1, 2, 3, 4, 5, 6]
    const grads = tf.tidy(() => {
      const a = tf.tensor2d(x, [2, 3])
      const f = (w: tf.Tensor) => tf.sum(tf.logSoftmax(tf.matMul(a, w)))
      return tf.grad(f)(tf.tensor2d([0.5, -1, 2, 0.25, 1, -0.5], [3, 2]))
    })
    const onGpu = Array.from(grads.dataSync())
    grads.dispose()
    expect(tf.memory().numTensors).toBe(before)
    await tf.setBackend('cpu')
    const onCpu = tf.tidy(() => {
      const a = tf.tensor2d(x, [2, 3])
      return Array.from(
        tf
          .grad((w: tf.Tensor) => tf.sum(tf.logSoftmax(tf.matMul(a, w))))(tf.tensor2d([0.5, -1, 2, 0.25, 1, -0.5], [3, 2]))
          .dataSync()
      )
    })
    onGpu.forEach((g, i) => expect(g).toBeCloseTo(onCpu[i]!, 5))
  })
})
