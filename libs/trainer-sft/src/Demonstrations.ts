/**
 * Expert demonstrations from an environment source (`Env.EnvSource`): the source's expert plays
 * training seeds, recorded exactly as rollouts would record them ({@link ExpertData.play}), as
 * many as asked and only those that fit the model's context; and the text of expert episodes,
 * from which a word tokenizer is built before any model exists ({@link corpus}).
 *
 * Training seeds are drawn below 2^31 ({@link trainSeed}); evaluation seeds start at 3e9
 * (`@mtrl/eval`), so the two never meet.
 *
 * @since 0.1.0
 */
import { EnvError, Numbers, Trajectory, type Env, type Rng } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import * as t from 'io-ts'
import * as ExpertData from './ExpertData.js'

/**
 * Why demonstrations could not be had:
 * - `NoExpert`: the source has no expert (SFT on it needs recorded demonstrations);
 * - `DoNotFit`: {@link maxSkipped} demonstrations in a row were skipped (too long for the
 *   context, no plan, or lost after a detour) and most were too long: `shortest` is the
 *   shortest of those (tokens);
 * - `NoPlan`: the same, but mostly because the expert had no plan or lost after a detour;
 * - `TooLong`: a given demonstration (`index`) is longer than the context;
 * - `Env`: the environment failed.
 *
 * @category models
 * @since 0.1.0
 */
export type DemoError =
  | { readonly _tag: 'NoExpert'; readonly env: string }
  | {
      readonly _tag: 'DoNotFit'
      readonly env: string
      readonly contextLength: number
      readonly kept: number
      readonly wanted: number
      readonly shortest: number
    }
  | { readonly _tag: 'NoPlan'; readonly env: string; readonly kept: number; readonly wanted: number }
  | { readonly _tag: 'TooLong'; readonly index: number; readonly length: number; readonly contextLength: number }
  | { readonly _tag: 'Env'; readonly error: EnvError.EnvError }

/**
 * A one-line, human-readable description.
 *
 * @category destructors
 * @since 0.1.0
 */
export const message = (error: DemoError): string => {
  switch (error._tag) {
    case 'NoExpert':
      return `${error.env} has no expert: SFT on it needs demonstrations from a JSONL file ("data")`
    case 'DoNotFit':
      return `${error.env}: ${maxSkipped} expert demonstrations in a row do not fit the model's context of ${error.contextLength} tokens (the shortest has ${error.shortest}; ${error.kept} of ${error.wanted} kept): give the model a longer context or the environment a shorter turn budget`
    case 'NoPlan':
      return `${error.env}: ${maxSkipped} episodes in a row gave no usable expert demonstration (${error.kept} of ${error.wanted} kept)`
    case 'TooLong':
      return `demonstration ${error.index + 1} has ${error.length} tokens, more than the model's context of ${error.contextLength}`
    case 'Env':
      return EnvError.message(error.error)
  }
}

/**
 * What a recipe sets of expert demonstrations (all optional, over {@link defaultSettings}):
 * how many (`episodes`), and detours: the per-turn probability `detourRate` of a random
 * admissible action instead of the expert's (not trained on), at most `maxDetours` per
 * demonstration.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Settings = t.partial({ episodes: Numbers.PositiveInt, detourRate: Numbers.Fraction, maxDetours: Numbers.PositiveInt })
/** @category models @since 0.1.0 */
export type Settings = t.TypeOf<typeof Settings>

/**
 * 100 demonstrations without detours (at most 1 when `detourRate` is set).
 *
 * @category constructors
 * @since 0.1.0
 */
export const defaultSettings: Required<Settings> = { episodes: 100, detourRate: 0, maxDetours: 1 }

/**
 * Expert episodes whose text builds a word tokenizer, per environment, by default.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultCorpusEpisodes = 400

/**
 * Demonstrations skipped in a row before {@link fromExpert} gives up.
 *
 * @category constants
 * @since 0.1.0
 */
export const maxSkipped = 100

/**
 * A training seed: below 2^31 (evaluation seeds start at 3e9).
 *
 * @category constructors
 * @since 0.1.0
 */
export const trainSeed = (rng: Rng.Rng): number => rng.int(2147483647)

/**
 * Options of {@link fromExpert}: those of {@link ExpertData.play} (detours: `detourRate`,
 * `maxDetours`), the number of demonstrations wanted, and the model's context (longer
 * demonstrations are skipped).
 *
 * @category models
 * @since 0.1.0
 */
export interface Options extends ExpertData.PlayOptions {
  readonly episodes: number
  readonly contextLength: number
}

/**
 * `options.episodes` demonstrations of the source's expert on training seeds drawn from `rng`:
 * each seed is played by asking the expert for each next action (with detours when
 * `detourRate` > 0, keeping won episodes only), and kept when it fits `contextLength`. Seeds
 * where the expert has no plan are skipped. After {@link maxSkipped} skipped seeds in a row it
 * stops with `DoNotFit` (or `NoPlan`) instead of trying forever.
 *
 * @example
 * import { Rng } from '@mtrl/core'
 * import { Settings, TextWorld } from '@mtrl/env-textworld'
 * import { Demonstrations } from '@mtrl/trainer-sft'
 * declare const renderer: import('@mtrl/trainer-sft').ExpertData.Renderer
 * const options = { systemPrompt: '', actionFormat: 'plain' as const, maxTurns: 12, detourRate: 0, maxDetours: 0, episodes: 60, contextLength: 512 }
 * const demos = await Demonstrations.fromExpert(options, renderer)(TextWorld.source(Settings.custom(2, 3, 4)), Rng.make(0))()
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromExpert =
  (options: Options, renderer: ExpertData.Renderer) =>
  (source: Env.EnvSource, rng: Rng.Rng): TE.TaskEither<DemoError, ReadonlyArray<Trajectory.Trajectory>> =>
  async () => {
    const expertPlan = source.expertPlan
    if (expertPlan === undefined) return E.left({ _tag: 'NoExpert', env: source.name })
    const env = source.make()
    const play = ExpertData.play(options, renderer)
    const nextAction = async (e: Env.Env): Promise<string | undefined> => expertPlan(e)[0]
    const out: Trajectory.Trajectory[] = []
    let skipped = 0
    let tooLong = 0
    let shortest = Number.POSITIVE_INFINITY
    const skip = (length?: number): void => {
      skipped += 1
      if (length === undefined) return
      tooLong += 1
      shortest = Math.min(shortest, length)
    }
    try {
      while (out.length < options.episodes) {
        if (skipped >= maxSkipped)
          return E.left(
            2 * tooLong > skipped
              ? { _tag: 'DoNotFit', env: source.name, contextLength: options.contextLength, kept: out.length, wanted: options.episodes, shortest }
              : { _tag: 'NoPlan', env: source.name, kept: out.length, wanted: options.episodes }
          )
        const seed = trainSeed(rng)
        const start = await env.reset(seed)()
        if (E.isLeft(start)) return E.left({ _tag: 'Env', error: start.left })
        if (expertPlan(env).length === 0) {
          skip()
          continue
        }
        const demo = await play(env, seed, nextAction, rng)()
        if (E.isLeft(demo)) return E.left({ _tag: 'Env', error: demo.left })
        // a detour can make a game unwinnable (e.g. eating what the quest needs): keep wins only
        if (options.detourRate > 0 && !demo.right.won) skip()
        else if (Trajectory.length(demo.right) > options.contextLength) skip(Trajectory.length(demo.right))
        else {
          out.push(demo.right)
          skipped = 0
          tooLong = 0
        }
      }
    } finally {
      await env.close()()
    }
    return E.right(out)
  }

/**
 * The demonstrations when every one fits `contextLength`; else `TooLong` naming the first
 * that does not (for demonstrations read from a file, which are not to be silently dropped).
 *
 * @category destructors
 * @since 0.1.0
 */
export const fitting =
  (contextLength: number) =>
  (demos: ReadonlyArray<Trajectory.Trajectory>): E.Either<DemoError, ReadonlyArray<Trajectory.Trajectory>> => {
    const index = demos.findIndex((d) => Trajectory.length(d) > contextLength)
    return index < 0 ? E.right(demos) : E.left({ _tag: 'TooLong', index, length: Trajectory.length(demos[index]!), contextLength })
  }

/**
 * The text of `episodes` expert episodes on training seeds drawn from `rng`: goals, first
 * observations, expert actions, observations and admissible actions, in order. A source without
 * an expert gives the goals and first observations. The words a word tokenizer learns.
 * `replies` gives the texts an expert action adds (default: the action; e.g. also the action
 * written as a tool call, for a policy that will write its actions so).
 *
 * @category constructors
 * @since 0.1.0
 */
export const corpus =
  (episodes: number, replies: (action: string) => ReadonlyArray<string> = (action) => [action]) =>
  (source: Env.EnvSource, rng: Rng.Rng): TE.TaskEither<EnvError.EnvError, ReadonlyArray<string>> =>
  async () => {
    const env = source.make()
    const texts: string[] = []
    try {
      for (let i = 0; i < episodes; i++) {
        const start = await env.reset(trainSeed(rng))()
        if (E.isLeft(start)) return start
        texts.push(start.right.goal, start.right.text, ...(start.right.info.admissibleActions ?? []))
        for (const action of source.expertPlan?.(env) ?? []) {
          const step = await env.step(action)()
          if (E.isLeft(step)) return step
          texts.push(...replies(action), step.right.observation, ...(step.right.info.admissibleActions ?? []))
          if (step.right.done) break
        }
      }
    } finally {
      await env.close()()
    }
    return E.right(texts)
  }
