/**
 * Throughput of @mtrl/env-textworld, single thread:
 * - games generated per second (seeds 0, 1, 2, ...);
 * - steps per second playing random admissible actions, computing the admissible list at every
 *   step (what the Env does by default) and, separately, replaying the same actions without it;
 * - expert plans per second from random reachable states.
 *
 * Every measurement runs once briefly to warm the JIT up, then for 2 s.
 * Run: npm run bench -w @mtrl/env-textworld
 */
import { Rng } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { Expert, Rules, Settings, TextWorld, type Game } from '../src/index.js'

const settings = ['w2-o3-q4', 'w4-o6-q8', 'w8-o12-q4', 'tw-simple-dense-detailed'] as const

const orThrow = <A>(e: E.Either<string, A>): A =>
  E.getOrElse<string, A>((reason) => {
    throw new Error(reason)
  })(e)

const timed = (seconds: number, body: () => number): number => {
  let n = 0
  const t0 = performance.now()
  while (performance.now() - t0 < seconds * 1000) n += body()
  return n / ((performance.now() - t0) / 1000)
}

const measure = (name: string, seconds: number): ReadonlyArray<number> => {
  const s = orThrow(Settings.parse(name))
  let seed = 0
  const gamesPerSecond = timed(seconds, () => {
    for (let i = 0; i < 20; i++) orThrow(TextWorld.gameFor(s)(seed++))
    return 20
  })
  const games = Array.from({ length: 64 }, (_, i) => orThrow(TextWorld.gameFor(s)(1_000_000 + i)))
  const rng = Rng.make(1)
  const recorded: Array<{ game: Game.Game; actions: string[] }> = []
  let k = 0
  const withAdmissible = timed(seconds, () => {
    const game = games[k++ % games.length]!
    let state = game.initial
    const actions: string[] = []
    for (let t = 0; t < 50; t++) {
      const admissible = Rules.admissible(game, state)
      if (admissible.length === 0) break
      const action = admissible[rng.int(admissible.length)]!
      actions.push(action)
      state = Rules.step(game)(state, action).state
    }
    if (recorded.length < 256) recorded.push({ game, actions })
    return actions.length
  })
  let r = 0
  const withoutAdmissible = timed(seconds, () => {
    const { game, actions } = recorded[r++ % recorded.length]!
    let state = game.initial
    for (const a of actions) state = Rules.step(game)(state, a).state
    return actions.length
  })
  const states = recorded.map(({ game, actions }) => {
    let state = game.initial
    for (const a of actions.slice(0, 10)) state = Rules.step(game)(state, a).state
    return { game, state }
  })
  let p = 0
  const plansPerSecond = timed(seconds, () => {
    for (let i = 0; i < 10; i++) {
      const { game, state } = states[p++ % states.length]!
      Expert.plan(game)(state)
    }
    return 10
  })
  return [gamesPerSecond, withAdmissible, withoutAdmissible, plansPerSecond]
}

for (const name of settings) measure(name, 0.3)
const fmt = (x: number): string => Math.round(x).toLocaleString('en-US').padStart(12)
console.log(`${'setting'.padEnd(26)}${['games/s', 'steps/s', 'steps/s', 'plans/s'].map((h) => h.padStart(12)).join('')}`)
console.log(`${''.padEnd(26)}${['generated', '+admissible', 'no admiss.', 'expert'].map((h) => h.padStart(12)).join('')}`)
for (const name of settings) console.log(`${name.padEnd(26)}${measure(name, 2).map(fmt).join('')}`)
