/**
 * A toy environment added the way any environment is, in one file: the game, its recipe codec
 * and its registry entry (`@mtrl/core` `EnvEntry`). Registered (`EnvConfig.register(entry)` of
 * `@mtrl/recipe`), `{ "kind": "guess", "high": 16 }` is a recipe's environment, `mtrl play guess
 * --high 16` a CLI's, a preset of the page's picker, with no edit in any of them.
 *
 * The game: guess a secret number from 1 to `high` (drawn from the seed); each wrong guess is
 * answered `higher` or `lower`; a right guess wins 1. The expert halves the range (binary
 * search), so it needs at most floor(log2(high)) + 1 guesses; the episode has one turn more.
 *
 * @since 0.7.0
 */
import { EnvEntry, EnvError, Numbers, type Env } from '@mtrl/core'
import * as TE from 'fp-ts/lib/TaskEither.js'
import * as t from 'io-ts'

/**
 * `high`: the largest secret (2 to 1000, default 16).
 *
 * @category codecs
 * @since 0.7.0
 */
export const Config = t.intersection([
  t.type({ kind: t.literal('guess') }),
  t.partial({ high: Numbers.refine('an integer from 2 to 1000', (n) => Number.isInteger(n) && n >= 2 && n <= 1000) })
])
export type Config = t.TypeOf<typeof Config>

/** The secret of a seed: from 1 to `high`. @category destructors @since 0.7.0 */
export const secret = (high: number, seed: number): number => ((Math.imul(seed + 1, 2654435761) >>> 0) % high) + 1

/** The turns an episode has: the expert's worst case and one more. @category destructors @since 0.7.0 */
export const maxTurns = (high: number): number => Math.floor(Math.log2(high)) + 2

/** The expert's guesses for `target`: the middles of the range left, down to the target. @category destructors @since 0.7.0 */
export const plan = (high: number, target: number): ReadonlyArray<string> => {
  const guesses: string[] = []
  for (let lo = 1, hi = high; lo <= hi;) {
    const mid = Math.floor((lo + hi) / 2)
    guesses.push(String(mid))
    if (mid === target) break
    if (mid < target) lo = mid + 1
    else hi = mid - 1
  }
  return guesses
}

interface GuessEnv extends Env.Env {
  /** The secret of the episode playing (undefined before a reset). */
  readonly target: () => number | undefined
}

/** @category constructors @since 0.7.0 */
export const make = (high = 16): GuessEnv => {
  const name = `guess/${high}`
  let target: number | undefined
  let turn = 0
  let over = true
  const info = (valid: boolean, won: boolean) => ({ valid, score: won ? 1 : 0, maxScore: 1 })
  return {
    spec: { name, maxTurns: maxTurns(high), actionFormat: `a number from 1 to ${high}` },
    target: () => target,
    reset: (seed) => {
      target = secret(high, seed)
      turn = 0
      over = false
      return TE.right({ goal: `guess the number from 1 to ${high}`, text: 'guess', info: info(true, false) })
    },
    step: (action) => {
      if (target === undefined) return TE.left(EnvError.notStarted(name))
      if (over) return TE.left({ _tag: 'EpisodeOver', env: name })
      turn += 1
      const n = Number(action.trim())
      const valid = Number.isInteger(n) && n >= 1 && n <= high
      const won = valid && n === target
      over = won || turn >= maxTurns(high)
      const observation = !valid ? `say a number from 1 to ${high}` : won ? 'right' : n < target ? 'higher' : 'lower'
      return TE.right({ observation, reward: won ? 1 : 0, done: over, won, info: info(valid, won) })
    },
    close: () => async () => undefined
  }
}

/** The source: one game per slot, the binary-search expert. @category constructors @since 0.7.0 */
export const source = (config: Config): Env.EnvSource => {
  const high = config.high ?? 16
  return {
    name: `guess/${high}`,
    maxTurns: maxTurns(high),
    make: () => make(high),
    expertPlan: (env) => {
      const target = (env as GuessEnv).target()
      return target === undefined ? [] : plan(high, target)
    },
    dispose: () => undefined
  }
}

/**
 * The registry entry.
 *
 * @category instances
 * @since 0.7.0
 */
export const entry: EnvEntry.EnvEntry = EnvEntry.make({
  kind: 'guess',
  doc: 'a toy: guess a number from 1 to high, told higher or lower',
  Config,
  source,
  hasExpert: true,
  label: (config: Config) => `guess/${config.high ?? 16}`,
  cli: [
    { name: 'guess', flags: { high: 'int' }, help: '--high 16', config: (v) => ({ kind: 'guess', ...(v['high'] === undefined ? {} : { high: v['high'] }) }) }
  ],
  page: { label: 'Guess a number', presets: [16, 100].map((high) => ({ name: `1 to ${high}`, config: { kind: 'guess', high } })) }
})
