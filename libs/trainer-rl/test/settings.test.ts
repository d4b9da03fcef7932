import { build } from 'esbuild'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import * as Algorithm from '../src/Algorithm.js'
import * as _ from '../src/settings.js'

describe('@mtrl/trainer-rl/settings', () => {
  it('is tensor-free: bundled for a page (as Vite does, unused modules dropped), it holds no TensorFlow.js', async () => {
    const result = await build({
      entryPoints: [fileURLToPath(new URL('../src/settings.ts', import.meta.url))],
      bundle: true,
      write: false,
      metafile: true,
      format: 'esm',
      platform: 'browser',
      conditions: ['@mtrl/source'],
      logLevel: 'silent'
    })
    const inputs = Object.keys(result.metafile.inputs)
    expect(inputs.some((p) => p.includes('src/Algorithm.ts'))).toBe(true)
    expect(inputs.filter((p) => p.includes('@tensorflow'))).toEqual([])
  }, 30_000)

  it("holds the trainer's own registry of algorithms", () => {
    expect(_.Algorithm.registry).toBe(Algorithm.registry)
    expect(_.Algorithm.names).toContain('gspo')
  })
})
