import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Services } from '@mtrl/testing'
import { afterAll, describe, expect, it } from 'vitest'
import { inProcess } from './support/inProcess.js'

const bin = join(__dirname, '..', 'bin', 'mtrl.mjs')
const dir = mkdtempSync(join(tmpdir(), 'mtrl-scale-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const env = { kind: 'textworld', settings: 'w1-o2-q2' }
const recipe = {
  name: 'scale-test',
  seed: 4,
  model: { kind: 'scratch', dModel: 32, layers: 1, heads: 2, maxLen: 256, corpusEpisodes: 20 },
  rollout: { maxNewTokens: 6 },
  stages: [{ kind: 'rl', env, iterations: 2, algorithm: 'grpo', budget: { seedsPerIteration: 3, groupSize: 2 } }],
  eval: { episodes: 2, batch: 2 },
  evalAfterEachStage: false,
  checkpointEvery: 0
}
const recipeFile = join(dir, 'recipe.json')
writeFileSync(recipeFile, JSON.stringify(recipe))

const run = (args: ReadonlyArray<string>): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, MTRL_BACKEND: 'wasm' } })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })

const rlMetrics = (runDir: string) =>
  readFileSync(join(runDir, 'metrics.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((m) => m['kind'] === 'rl')
    .map((m) => Object.fromEntries(Object.entries(m).filter(([k]) => !k.startsWith('time/') && !k.startsWith('perf/'))))

const processesWith = (text: string): string[] =>
  readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .flatMap((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(text) ? [p] : []
      } catch {
        return []
      }
    })

describe('scale-out from the CLI', () => {
  it.runIf(Services.available('redis-server'))(
    `mtrl train --workers 2 --queue Q plays the RL episodes on 2 worker processes and takes the same steps as a local run ${Services.tag('redis-server')}`,
    async () => {
      const local = join(dir, 'local')
      const spread = join(dir, 'spread')
      const [a, b] = await Promise.all([
        run(['train', recipeFile, '--run-dir', local]),
        run(['train', recipeFile, '--run-dir', spread, '--workers', '2', '--queue', 'scale-test'])
      ])
      expect(a.code, a.stderr).toBe(0)
      expect(b.code, b.stderr).toBe(0)
      expect(b.stdout).toMatch(/scale-out: local redis-server at redis:\/\/127\.0\.0\.1:\d+/)
      expect(b.stdout).toMatch(/scale-out: 2 local worker processes on wasm/)
      const metrics = rlMetrics(spread)
      expect(metrics.length).toBe(2)
      expect(metrics).toEqual(rlMetrics(local))
      expect(JSON.parse(readFileSync(join(spread, 'recipe.json'), 'utf8')).scaleOut).toEqual({ workers: 2, queue: 'scale-test' })
      // the workers and the local redis-server are gone
      expect(processesWith(`--redis\u0000redis://127.0.0.1`)).toEqual([])
    },
    240_000
  )

  it('mtrl worker needs --redis, and an unreachable one is a clear error', async () => {
    // in this process (the command's errors and codes; the workers above are processes)
    const missing = await inProcess(['worker'], { MTRL_REDIS: '' })
    expect(missing.code).toBe(2)
    const down = await inProcess(['worker', '--redis', 'redis://127.0.0.1:1', '--backend', 'cpu'])
    expect(down.code).toBe(1)
    expect(down.stderr).toMatch(/Redis at redis:\/\/127\.0\.0\.1:1 is not reachable/)
  }, 60_000)
})
