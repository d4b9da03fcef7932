/**
 * Benchmarks of the SWE environment, printed as a table:
 * - tasks generated per second (cold: verification runs; warm: from the verdict cache);
 * - latency of one sandboxed test-suite run (p50 / p95), with every available guard;
 * - episodes per second with the scripted expert (warm generator, pool of 2).
 *
 * Run: npm run bench -w @mtrl/env-swe
 */
import * as E from 'fp-ts/lib/Either.js'
import * as Corpus from '../src/Corpus.js'
import * as Play from '../src/Play.js'
import * as Sandbox from '../src/Sandbox.js'
import * as Suite from '../src/Suite.js'
import * as Swe from '../src/Swe.js'
import * as Task from '../src/Task.js'
import * as Workspace from '../src/Workspace.js'

const quantile = (xs: ReadonlyArray<number>, q: number): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!
}

const main = async (): Promise<void> => {
  console.log(Sandbox.describeProbe(Sandbox.probe()))
  console.log(`node ${process.versions.node}, corpus ${Corpus.projects.length} projects`)
  const shared = Swe.resources({}, 2)
  const rows: Array<[string, string]> = []

  // 1. Task generation, cold then warm.
  const tiers: ReadonlyArray<Task.Tier> = ['easy', 'medium', 'hard']
  const seeds = Array.from({ length: 8 }, (_, i) => 1000 + i)
  let t0 = performance.now()
  for (const tier of tiers) {
    await Promise.all(
      seeds.map(async (s) => {
        const r = await shared.generator.generate(s, tier)()
        if (E.isLeft(r)) throw new Error(r.left)
      })
    )
  }
  const cold = performance.now() - t0
  const n = tiers.length * seeds.length
  rows.push(['tasks generated/s (cold, verifying)', `${((n / cold) * 1000).toFixed(2)}  (${n} tasks, ${shared.generator.stats().runs} sandbox runs)`])
  t0 = performance.now()
  for (const tier of tiers) for (const s of seeds) await shared.generator.generate(s, tier)()
  const warm = performance.now() - t0
  rows.push(['tasks generated/s (warm, cached)', `${((n / warm) * 1000).toFixed(0)}`])

  // 2. One suite run in the sandbox (sequential, so latency is not queueing).
  const project = Corpus.byName('lru-cache')!
  const ws = Workspace.make(project.files)
  const lat: number[] = []
  for (let i = 0; i < 30; i++) {
    const t = performance.now()
    const r = await Suite.run({ limits: Sandbox.defaultLimits })(ws, Corpus.testSources(project))()
    if (E.isLeft(r)) throw new Error(Sandbox.errorMessage(r.left))
    lat.push(performance.now() - t)
  }
  ws.dispose()
  rows.push(['test-run latency p50 / p95 (ms, all guards)', `${quantile(lat, 0.5).toFixed(0)} / ${quantile(lat, 0.95).toFixed(0)}`])
  const bare: number[] = []
  const ws2 = Workspace.make(project.files)
  for (let i = 0; i < 15; i++) {
    const t = performance.now()
    await Suite.run({ limits: Sandbox.defaultLimits, guards: ['timeout', 'outputCap'] })(ws2, Corpus.testSources(project))()
    bare.push(performance.now() - t)
  }
  ws2.dispose()
  rows.push(['test-run latency p50 (ms, no namespaces/permission)', quantile(bare, 0.5).toFixed(0)])

  // 3. Expert episodes on warm tasks, two at a time (pool of 2).
  t0 = performance.now()
  let episodes = 0
  let won = 0
  for (const tier of tiers) {
    const results = await Promise.all(seeds.map((s) => Play.expert({ tier }, shared)(s)()))
    for (const r of results) {
      if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
      episodes++
      if (r.right.won) won++
    }
  }
  const epMs = performance.now() - t0
  rows.push(['expert episodes/s (pool 2, warm tasks)', `${((episodes / epMs) * 1000).toFixed(2)}  (${won}/${episodes} won)`])
  shared.dispose()

  const width = Math.max(...rows.map(([k]) => k.length))
  for (const [k, v] of rows) console.log(`${k.padEnd(width)}  ${v}`)
}

void main()
