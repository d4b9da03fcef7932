import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const bin = join(__dirname, '..', 'bin', 'mtrl.mjs')
const mtrl = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv = {}) => {
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 120_000 })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

describe('mtrl CLI', () => {
  it('prints help listing the commands', () => {
    const { code, stdout } = mtrl(['--help'])
    expect(code).toBe(0)
    expect(stdout).toMatch(/Commands:/)
    expect(stdout).toMatch(/info/)
  })

  it('rejects an unknown command with exit code 2', () => {
    const { code, stderr } = mtrl(['fly'])
    expect(code).toBe(2)
    expect(stderr).toMatch(/unknown command "fly"/)
  })

  it('rejects an unknown flag, naming it', () => {
    const { code, stderr } = mtrl(['info', '--bakend', 'cpu'])
    expect(code).toBe(2)
    expect(stderr).toMatch(/--bakend/)
  })

  it('info works on the cpu backend', () => {
    const { code, stdout } = mtrl(['info', '--backend', 'cpu', '--json'])
    expect(code).toBe(0)
    const report = JSON.parse(stdout)
    expect(report.backend.name).toBe('cpu')
    expect(report.tfjs).toBe('4.22.0')
    expect(Object.keys(report.accelerators)).toContain('@tensorflow/tfjs-node')
  })

  it('honours MTRL_BACKEND', () => {
    const { code, stdout } = mtrl(['info', '--json'], { MTRL_BACKEND: 'wasm' })
    expect(code).toBe(0)
    expect(JSON.parse(stdout).backend.name).toBe('wasm')
  })

  it('a forced backend that is not installed is a clear error, not a fallback', () => {
    const probe = JSON.parse(mtrl(['info', '--backend', 'cpu', '--json']).stdout)
    const hasTensorflow = probe.accelerators['@tensorflow/tfjs-node'].installed || probe.accelerators['@tensorflow/tfjs-node-gpu'].installed
    const { code, stderr } = mtrl(['info', '--backend', 'tensorflow'])
    if (hasTensorflow) {
      expect(code).toBe(0)
    } else {
      expect(code).toBe(3)
      expect(stderr).toMatch(/backend "tensorflow" is not available/)
    }
  })

  it('rejects an unknown backend name', () => {
    const { code, stderr } = mtrl(['info', '--backend', 'gpu'])
    expect(code).toBe(2)
    expect(stderr).toMatch(/unknown backend "gpu"/)
  })

  it('runs a smoke training step on wasm and the loss goes down', () => {
    const { code, stdout } = mtrl(['smoke', '--steps', '10'])
    expect(code).toBe(0)
    expect(stdout).toMatch(/on wasm/)
  })

  it('eval honours --episodes with --split (a Hugging Face folder on held-out validation seeds)', () => {
    const model = join(__dirname, '..', '..', '..', 'fixtures', 'hf', 'tiny-qwen2')
    const { code, stdout } = mtrl(['eval', '--checkpoint', model, '--hf', 'textworld', '--config', 'w1-o1-q1', '--episodes', '2', '--split', 'validation', '--json', '--backend', 'cpu'])
    expect(code).toBe(0)
    expect(JSON.parse(stdout).results.map((r: { episodes: number; seeds: unknown }) => [r.episodes, r.seeds])).toEqual([[2, { split: 'validation', first: 3_500_000_000, count: 2 }]])
  })
})
