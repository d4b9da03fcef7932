/**
 * Evaluation of a policy on held-out seeds: the policy plays `episodes` seeds (`seedBase + i`),
 * greedy by default, in batches of `batch` parallel episodes, and the episodes are summarised
 * ({@link Summary}). Held-out seeds lie above every training seed (drawn below 2^31), so held-out
 * games never meet training games, in two ranges ({@link Split}): `validation` seeds for tuning
 * (recipes, ablations, decisions) and `test` seeds for the figures a project reports, which
 * nothing is tuned on. The summary records which were played.
 *
 * @since 0.1.0
 */
import { Numbers, Rng, type Env, type EnvError, type Trajectory } from '@mtrl/core'
import { Rollout, type Generator } from '@mtrl/rollout'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import * as t from 'io-ts'
import * as Summary from './Summary.js'

/**
 * The two ranges of held-out seeds: `validation` (from 3.5e9) for tuning, `test` (from 4e9)
 * for reported figures. Seeds from 3e9 were the held-out range until 2026-12 and were tuned on;
 * they are neither.
 *
 * @category codecs
 * @since 0.2.0
 */
export const Split = t.keyof({ validation: null, test: null })
/** @category models @since 0.2.0 */
export type Split = t.TypeOf<typeof Split>

/**
 * The first seed of each split.
 *
 * @category constructors
 * @since 0.2.0
 */
export const splitSeedBase: { readonly [K in Split]: number } = { validation: 3_500_000_000, test: 4_000_000_000 }

/**
 * What a recipe sets of an evaluation (all optional, see {@link resolve}): `episodes` per
 * environment, sampling `temperature` (0: greedy), `split` (which held-out seeds: `test` unless
 * said), `seedBase` (the first seed, overriding the split's), `batch` (parallel episodes).
 *
 * @category codecs
 * @since 0.1.0
 */
export const Settings = t.partial({
  episodes: Numbers.PositiveInt,
  temperature: Numbers.NonNegative,
  split: Split,
  /** Evaluation seeds are seedBase + 0, 1, ...; training seeds are drawn below 2^31. */
  seedBase: Numbers.NonNegativeInt,
  batch: Numbers.PositiveInt
})
/** @category models @since 0.1.0 */
export type Settings = t.TypeOf<typeof Settings>

/**
 * Settings with every value filled; `split` is `custom` for a `seedBase` that starts no split.
 *
 * @category models
 * @since 0.2.0
 */
export interface Resolved {
  readonly episodes: number
  readonly temperature: number
  readonly split: Split | 'custom'
  readonly seedBase: number
  readonly batch: number
}

/**
 * Fills the settings: 100 greedy episodes, 50 at a time, on the `test` split unless a split or
 * a `seedBase` is given.
 *
 * @category constructors
 * @since 0.2.0
 */
export const resolve = (settings: Settings): Resolved => {
  const named = (Object.keys(splitSeedBase) as Split[]).find((k) => splitSeedBase[k] === settings.seedBase)
  const split = settings.seedBase === undefined ? (settings.split ?? 'test') : (named ?? 'custom')
  return {
    episodes: settings.episodes ?? 100,
    temperature: settings.temperature ?? 0,
    split,
    seedBase: settings.seedBase ?? splitSeedBase[settings.split ?? 'test'],
    batch: settings.batch ?? 50
  }
}

/**
 * 100 greedy episodes of the test split, 50 at a time.
 *
 * @category constructors
 * @since 0.1.0
 */
export const defaultSettings: Resolved = resolve({})

/**
 * Options of {@link run}: the settings, the rollout options (their temperature is replaced by
 * the evaluation's, and an `exploreRate` is ignored: an evaluation plays the policy alone), the seed of the sampling stream, and a callback for every finished
 * episode (e.g. to write transcripts).
 *
 * @category models
 * @since 0.1.0
 */
export interface Options extends Resolved {
  readonly rollout: Rollout.Options
  readonly seed: number
  readonly onEpisode?: (episode: Trajectory.Trajectory) => void
}

/**
 * Plays `options.episodes` held-out seeds of `source` in batches of at most `options.batch`
 * (and at most the session's slots) and summarises them, with the task type of each seed where
 * the source has types. Environment failures end it with the environment's error. The
 * environments it makes are closed at the end.
 *
 * @example
 * import { Evaluate } from '@mtrl/eval'
 * import { Rollout } from '@mtrl/rollout'
 * declare const generator: import('@mtrl/rollout').Generator.Generator
 * declare const source: import('@mtrl/core').Env.EnvSource
 * const summary = await Evaluate.run({ ...Evaluate.defaultSettings, rollout: Rollout.defaultOptions, seed: 0 })(generator)(source)()
 *
 * @category destructors
 * @since 0.1.0
 */
export const run =
  (options: Options) =>
  (generator: Generator.Generator) =>
  (source: Env.EnvSource): TE.TaskEither<EnvError.EnvError, Summary.Summary> =>
  async () => {
    const rng = Rng.make(options.seed)
    const { exploreRate: _explore, ...played } = options.rollout
    const outcomes: Summary.Outcome[] = []
    const slots = Math.min(options.batch, generator.session.slots)
    const envs = Array.from({ length: slots }, () => source.make())
    try {
      for (let start = 0; start < options.episodes; start += slots) {
        const count = Math.min(slots, options.episodes - start)
        const seeds = Array.from({ length: count }, (_, i) => options.seedBase + start + i)
        const result = await Rollout.run({ ...played, temperature: options.temperature })(generator)({
          envs: envs.slice(0, count),
          seeds,
          groupSize: 1,
          rng: rng.split()
        })()
        if (E.isLeft(result)) return result
        for (const episode of result.right.episodes) {
          options.onEpisode?.(episode.trajectory)
          outcomes.push(Summary.outcome(episode.trajectory, source.taskType?.(episode.trajectory.seed)))
        }
      }
    } finally {
      await Promise.all(envs.map((env) => env.close()()))
    }
    return E.right({ ...Summary.summarise(source.name, outcomes), seeds: { split: options.split, first: options.seedBase, count: options.episodes } })
  }

/**
 * Options of {@link runEach}: those of {@link run}, with the rollout options per source (e.g.
 * its own turn budget).
 *
 * @category models
 * @since 0.1.0
 */
export interface EachOptions extends Omit<Options, 'rollout'> {
  readonly rollout: (source: Env.EnvSource) => Rollout.Options
}

/**
 * {@link run} on every source in turn with one generator: source `i` samples from the stream
 * `seed + i`. The first environment failure ends it, with the name of the source that failed.
 *
 * @example
 * import { Evaluate } from '@mtrl/eval'
 * import { Rollout } from '@mtrl/rollout'
 * declare const generator: import('@mtrl/rollout').Generator.Generator
 * declare const sources: ReadonlyArray<import('@mtrl/core').Env.EnvSource>
 * const rollout = (s: { readonly maxTurns: number }) => ({ ...Rollout.defaultOptions, maxTurns: s.maxTurns })
 * const summaries = await Evaluate.runEach({ ...Evaluate.defaultSettings, rollout, seed: 0 })(generator)(sources)()
 *
 * @category destructors
 * @since 0.1.0
 */
export const runEach =
  (options: EachOptions) =>
  (generator: Generator.Generator) =>
  (sources: ReadonlyArray<Env.EnvSource>): TE.TaskEither<{ readonly env: string; readonly error: EnvError.EnvError }, ReadonlyArray<Summary.Summary>> =>
  async () => {
    const out: Summary.Summary[] = []
    for (const [i, source] of sources.entries()) {
      const result = await run({ ...options, rollout: options.rollout(source), seed: options.seed + i })(generator)(source)()
      if (E.isLeft(result)) return E.left({ env: source.name, error: result.left })
      out.push(result.right)
    }
    return E.right(out)
  }
