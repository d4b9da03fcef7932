/**
 * Load test of the HTTP environment path on loopback: 64 concurrent environments, 10 000 steps
 * in all, against an EnvServer in its own process. Every answer is checked: the right
 * environment (seed), no step lost or played twice (the server's step counter), the right
 * action. Prints steps/s and latency percentiles; exits 1 on any misrouted or lost step or
 * after 120 s.
 *
 *   npm run bench -w @mtrl/env-http
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import * as E from 'fp-ts/lib/Either.js'
import { EnvError } from '@mtrl/core'
import { HttpEnv } from '../src/index.js'
import * as CounterEnv from './counterEnv.js'

const ENVS = 64
const STEPS = 10_000
const DEADLINE_MS = 120_000

const deadline = setTimeout(() => {
  console.error(`bench: not done within ${DEADLINE_MS / 1000} s`)
  process.exit(1)
}, DEADLINE_MS)

const server = spawn(process.execPath, ['--conditions=@mtrl/source', '--import', 'tsx', fileURLToPath(new URL('./server.ts', import.meta.url))], {
  stdio: ['ignore', 'pipe', 'inherit']
})
const url = await new Promise<string>((resolve, reject) => {
  let out = ''
  server.stdout.on('data', (d: Buffer) => {
    out += d.toString()
    if (out.includes('\n')) resolve(out.split('\n')[0]!.trim())
  })
  server.once('exit', (code) => reject(new Error(`server exited with ${code}`)))
})

const envs = Array.from({ length: ENVS }, () => HttpEnv.make({ baseUrl: url, timeoutMs: 10_000, retries: 2 }))
const seeds = envs.map((_, i) => 1000 + i)
for (const [i, env] of envs.entries()) {
  const r = await env.reset(seeds[i]!)()
  if (E.isLeft(r)) throw new Error(EnvError.message(r.left))
}

let misrouted = 0
let lost = 0
const latencies: number[] = []
const quota = envs.map((_, i) => Math.floor(STEPS / ENVS) + (i < STEPS % ENVS ? 1 : 0))
const started = performance.now()
await Promise.all(
  envs.map(async (env, i) => {
    for (let n = 1; n <= quota[i]!; n++) {
      const action = `a${i}.${n}`
      const t0 = performance.now()
      const r = await env.step(action)()
      latencies.push(performance.now() - t0)
      if (E.isLeft(r)) {
        lost += 1
        console.error(EnvError.message(r.left))
      } else if (r.right.observation !== CounterEnv.observation(seeds[i]!, n, action) || r.right.info.score !== n) {
        misrouted += 1
        if (misrouted < 5) console.error(`env ${i} step ${n}: got ${JSON.stringify(r.right.observation)}`)
      }
    }
  })
)
const seconds = (performance.now() - started) / 1000
for (const env of envs) await env.close()()
const held = await fetch(`${url}/list_envs`).then((r) => r.json() as Promise<number[]>)
server.kill('SIGTERM')
clearTimeout(deadline)

latencies.sort((a, b) => a - b)
const pct = (p: number): string => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!.toFixed(2)
const total = quota.reduce((a, b) => a + b, 0)
console.log(`env-http loopback: ${ENVS} environments, ${total} steps in ${seconds.toFixed(2)} s`)
console.log(`  ${(total / seconds).toFixed(0)} steps/s; latency ms p50 ${pct(50)}, p90 ${pct(90)}, p99 ${pct(99)}, max ${pct(100)}`)
console.log(`  misrouted ${misrouted}, lost ${lost}, environments left on the server ${held.length}`)
process.exit(misrouted === 0 && lost === 0 && held.length === 0 ? 0 : 1)
