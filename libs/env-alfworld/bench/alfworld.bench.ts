/**
 * Throughput of @mtrl/env-alfworld on this machine: random admissible actions through the
 * `Env` contract (steps/s), game generation (games/s via reset), and expert plans/s.
 * Run: npm run bench -w @mtrl/env-alfworld
 */
import { Rng } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { AlfWorld, Expert, Game, Scene, Task } from '../src/index.js'

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 3)
const fmt = (x: number): string => Math.round(x).toLocaleString('en-US')

/**
 * Wall-clock and CPU-time rates. The machine is shared, so the CPU-time figure (work done per
 * second of this process on a core) is the stable one; wall clock drops when others load it.
 */
let cpu0 = process.cpuUsage()
let wall0 = performance.now()
const startClock = (): number => {
  cpu0 = process.cpuUsage()
  wall0 = performance.now()
  return wall0
}
const rate = (n: number): string => {
  const wall = (performance.now() - wall0) / 1000
  const used = process.cpuUsage(cpu0)
  const cpu = (used.user + used.system) / 1e6
  return `${fmt(n / cpu).padStart(7)} per CPU-s (${fmt(n / wall)} per wall-s)`
}

const envSteps = async (): Promise<void> => {
  const env = AlfWorld.make({ maxTurns: 50 })
  const rng = Rng.make(1)
  let steps = 0
  let episodes = 0
  let seed = 0
  let admissible: ReadonlyArray<string> = []
  const reset = async (): Promise<void> => {
    const first = await env.reset(seed++)()
    if (E.isLeft(first)) throw new Error('reset failed')
    admissible = first.right.info.admissibleActions ?? []
    episodes++
  }
  await reset()
  const t0 = startClock()
  while (performance.now() - t0 < SECONDS * 1000) {
    for (let k = 0; k < 1000; k++) {
      const result = await env.step(admissible[rng.int(admissible.length)]!)()
      if (E.isLeft(result)) throw new Error('step failed')
      steps++
      if (result.right.done) await reset()
      else admissible = result.right.info.admissibleActions ?? []
    }
  }
  console.log(`env.step, random admissible actions, via Env (incl. resets): ${rate(steps)} steps  [${steps} steps, ${episodes} episodes]`)
}

const rawSteps = (): void => {
  const rng = Rng.make(2)
  let steps = 0
  let seed = 0
  let state = Game.start(Scene.generate('train', Task.taskTypes)(seed++))
  const t0 = startClock()
  while (performance.now() - t0 < SECONDS * 1000) {
    for (let k = 0; k < 1000; k++) {
      const options = Game.admissible(state)
      state = Game.step(options[rng.int(options.length)]!)(state).state
      steps++
      if (Game.won(state) || k % 50 === 49) state = Game.start(Scene.generate('train', Task.taskTypes)(seed++))
    }
  }
  console.log(`Game.step + Game.admissible, pure core:                     ${rate(steps)} steps`)
}

const games = async (): Promise<void> => {
  for (const split of ['train', 'valid-unseen'] as const) {
    const env = AlfWorld.make({ split })
    let n = 0
    const t0 = startClock()
    while (performance.now() - t0 < SECONDS * 1000) {
      for (let k = 0; k < 100; k++) await env.reset(n++)()
    }
    console.log(`env.reset (${split})${' '.repeat(12 - split.length)}                                  ${rate(n)} games`)
  }
}

const plans = (): void => {
  for (const type of Task.taskTypes) {
    let n = 0
    let length = 0
    const t0 = startClock()
    while (performance.now() - t0 < (SECONDS * 1000) / 3) {
      const plan = Expert.plan(Game.start(Scene.generate('train', [type])(n++)))
      if (plan._tag === 'Some') length += plan.value.length
    }
    console.log(`Expert.plan ${type.padEnd(47)} ${rate(n)} plans, mean length ${(length / n).toFixed(1)}`)
  }
}

console.log(`@mtrl/env-alfworld bench (node ${process.version}, ${SECONDS}s per figure)`)
await envSteps()
rawSteps()
await games()
plans()
