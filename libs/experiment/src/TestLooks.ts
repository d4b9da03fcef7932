/**
 * The test-seed ledger's rules: what one look at the test split records, and when a look is
 * refused. A look at the test seeds is a figure a project may report; tuning on it would make the
 * figure an overestimate, so every test-split evaluation is recorded (`results/test-looks.jsonl`,
 * committed; {@link Ledger} reads and writes it) and the tool refuses the look that selects: a
 * second checkpoint of the same recipe version and training seed looked at after the first
 * (e.g. the after-SFT checkpoint of a run whose after-RL checkpoint was looked at). The rules are
 * pure; docs/decisions/0018-test-seed-ledger.md gives the reasons.
 *
 * - A run of a recipe (`mtrl train`, `npm start`, each run of an ablation) plays the evaluations
 *   its recipe plans: never refused, always recorded; a rerun of a recipe version and seed is a
 *   later look and `mtrl results` numbers it so.
 * - `mtrl eval` on test seeds of a checkpoint of a run is refused when another checkpoint of the
 *   same recipe version and training seed was looked at before.
 * - The same checkpoint in the same evaluation (games, temperature, sampling seed, backend) is
 *   the same look: the same figure is expected (`Repeat`, not recorded again); another one
 *   (`Mismatch`) is an error worth knowing.
 *
 * @since 0.2.0
 */
import * as t from 'io-ts'

/**
 * One entry of the ledger: one environment's success rate of one look.
 *
 * - `recipeHash`: sha256 (16 hex) of the resolved recipe without its seed, name, description,
 *   ablation and scale-out (`Ledger.recipeHash`); null for a model outside any run.
 * - `seed`: the training seed (the recipe's); null without a recipe.
 * - `checkpoint`: sha256 (16 hex) of what plays (`Ledger.checkpointHash`); null for a model built
 *   from scratch that was never saved (a run's `before training`).
 * - `via`: `run` (a recipe's planned evaluation) or `eval` (`mtrl eval`).
 *
 * @category codecs
 * @since 0.2.0
 */
export const Look = t.type({
  date: t.string,
  commit: t.string,
  recipe: t.union([t.string, t.null]),
  recipeHash: t.union([t.string, t.null]),
  seed: t.union([t.number, t.null]),
  run: t.union([t.string, t.null]),
  phase: t.string,
  checkpoint: t.union([t.string, t.null]),
  env: t.string,
  firstSeed: t.number,
  episodes: t.number,
  temperature: t.number,
  samplingSeed: t.number,
  backend: t.string,
  successRate: t.number,
  via: t.keyof({ run: null, eval: null })
})
/** @category models @since 0.2.0 */
export type Look = t.TypeOf<typeof Look>

/**
 * The first test seed (`Evaluate.splitSeedBase.test` of @mtrl/eval): every seed from it on is a
 * test seed, so a custom `seedBase` that reaches it is a test look too.
 *
 * @category constructors
 * @since 0.2.0
 */
export const firstTestSeed = 4_000_000_000

/**
 * Whether the games `firstSeed + [0, count)` include a test seed.
 *
 * @category destructors
 * @since 0.2.0
 */
export const touchesTest = (firstSeed: number, count: number): boolean => firstSeed + count > firstTestSeed

/**
 * What an `mtrl eval` of a checkpoint is about to look at.
 *
 * @category models
 * @since 0.2.0
 */
export interface Planned {
  readonly recipe: string | null
  readonly recipeHash: string | null
  readonly seed: number | null
  readonly checkpoint: string | null
}

/**
 * Before an `mtrl eval` on test seeds: `Go`, or `Refused` with the earliest look at another
 * checkpoint of the same recipe version and training seed.
 *
 * @category models
 * @since 0.2.0
 */
export type Before = { readonly _tag: 'Go' } | { readonly _tag: 'Refused'; readonly earlier: Look; readonly message: string }

const short = (hash: string | null): string => (hash === null ? 'none' : hash.slice(0, 8))
const pct = (x: number): string => `${(100 * x).toFixed(1)}%`

/** `2026-12-05 at abc1234 (run R, after stage 2 (rl ...), checkpoint 1a2b3c4d: textworld/w2-o3-q4 97.0%)` */
const describe = (look: Look): string =>
  `${look.date.slice(0, 16).replace('T', ' ')} UTC at commit ${look.commit.slice(0, 7)} (${look.run === null ? 'mtrl eval' : `run ${look.run}`}, ${look.phase}, checkpoint ${short(look.checkpoint)}: ${look.env} ${pct(look.successRate)} on ${look.episodes} test games)`

/**
 * The rule for `mtrl eval` on test seeds: refused when the ledger holds a look at another
 * checkpoint of the same recipe version and training seed (a model outside any run, with no
 * recipe, is never refused); the refusal names the earlier look and the way forward.
 *
 * @example
 * import { TestLooks } from '@mtrl/experiment'
 * TestLooks.before([])({ recipe: 'r', recipeHash: 'a', seed: 1, checkpoint: 'c' })._tag // 'Go'
 *
 * @category destructors
 * @since 0.2.0
 */
export const before =
  (looks: ReadonlyArray<Look>) =>
  (planned: Planned): Before => {
    if (planned.recipeHash === null) return { _tag: 'Go' }
    const same = looks.filter((l) => l.recipeHash === planned.recipeHash && l.seed === planned.seed)
    if (same.length === 0 || same.some((l) => l.checkpoint !== null && l.checkpoint === planned.checkpoint)) return { _tag: 'Go' }
    const earlier = same[0]!
    const message = [
      `refused: a second look at the test seeds for recipe ${planned.recipe ?? '?'} (version ${short(planned.recipeHash)}), training seed ${planned.seed}:`,
      `  it was looked at on ${describe(earlier)},`,
      `  and this checkpoint (${short(planned.checkpoint)}) is another one of the same recipe version and seed.`,
      `  Look at it on validation seeds (--split validation), or make a new version of the recipe that plans this`,
      `  evaluation (e.g. "evalAfterEachStage": true) and run it once. The ledger: mtrl results.`
    ].join('\n')
    return { _tag: 'Refused', earlier, message }
  }

/**
 * After a look: `New` (append it), `Repeat` (the same checkpoint in the same evaluation gave
 * the same figure before: nothing to append) or `Mismatch` (it gave another figure).
 *
 * @category models
 * @since 0.2.0
 */
export type After =
  | { readonly _tag: 'New'; readonly look: Look }
  | { readonly _tag: 'Repeat'; readonly earlier: Look }
  | { readonly _tag: 'Mismatch'; readonly earlier: Look; readonly look: Look; readonly message: string }

/** The same games, played the same way, on the same backend. */
const sameEvaluation = (a: Look, b: Look): boolean =>
  a.env === b.env &&
  a.firstSeed === b.firstSeed &&
  a.episodes === b.episodes &&
  a.temperature === b.temperature &&
  (a.temperature === 0 || a.samplingSeed === b.samplingSeed) &&
  a.backend === b.backend

/**
 * Classifies a finished look against the ledger (see {@link After}).
 *
 * @category destructors
 * @since 0.2.0
 */
export const after =
  (looks: ReadonlyArray<Look>) =>
  (look: Look): After => {
    const earlier = look.checkpoint === null ? undefined : looks.find((l) => l.checkpoint === look.checkpoint && sameEvaluation(l, look))
    if (earlier === undefined) return { _tag: 'New', look }
    if (earlier.successRate === look.successRate) return { _tag: 'Repeat', earlier }
    const message = `the same checkpoint (${short(look.checkpoint)}) in the same evaluation gave ${pct(earlier.successRate)} on ${describe(earlier)}, and ${pct(look.successRate)} now: the evaluation is not deterministic here (both are in the ledger)`
    return { _tag: 'Mismatch', earlier, look, message }
  }

/**
 * The look number of each entry: the n-th distinct look at its recipe version and training seed
 * (a run is one look whatever its phases; an `mtrl eval` of a checkpoint already looked at is
 * part of that look); 0 for entries without a recipe.
 *
 * @category destructors
 * @since 0.2.0
 */
export const numbers = (looks: ReadonlyArray<Look>): ReadonlyArray<number> => {
  const groups = new Map<string, { count: number; readonly byRun: Map<string, number>; readonly byCheckpoint: Map<string, number> }>()
  return looks.map((l) => {
    if (l.recipeHash === null) return 0
    const key = `${l.recipeHash}\u0000${l.seed}`
    const group = groups.get(key) ?? { count: 0, byRun: new Map<string, number>(), byCheckpoint: new Map<string, number>() }
    groups.set(key, group)
    const known = (l.run === null ? undefined : group.byRun.get(l.run)) ?? (l.checkpoint === null ? undefined : group.byCheckpoint.get(l.checkpoint))
    const n = known ?? ++group.count
    if (l.run !== null) group.byRun.set(l.run, n)
    if (l.checkpoint !== null) group.byCheckpoint.set(l.checkpoint, n)
    return n
  })
}

/**
 * The ledger as a table for people, one line per entry, oldest first: date, commit, recipe
 * (version), training seed, look number, phase, checkpoint, environment, first test seed and
 * games, success rate, backend.
 *
 * @category destructors
 * @since 0.2.0
 */
export const format = (looks: ReadonlyArray<Look>): string => {
  const ns = numbers(looks)
  const header = `${'date (UTC)'.padEnd(16)}  commit   ${'recipe (version)'.padEnd(40)} seed  look  ${'phase'.padEnd(34)} ckpt      ${'env'.padEnd(22)} games          success  backend`
  const rows = looks.map((l, i) =>
    [
      l.date.slice(0, 16).replace('T', ' '),
      l.commit.slice(0, 7).padEnd(7),
      `${l.recipe ?? '-'} (${short(l.recipeHash)})`.padEnd(40),
      String(l.seed ?? '-').padStart(4),
      String(ns[i] === 0 ? '-' : ns[i]).padStart(4),
      l.phase.slice(0, 34).padEnd(34),
      short(l.checkpoint).padEnd(8),
      l.env.slice(0, 22).padEnd(22),
      `${l.firstSeed}+${l.episodes}`.padEnd(14),
      pct(l.successRate).padStart(7),
      l.backend
    ].join('  ')
  )
  return [header, ...rows].join('\n')
}
