/**
 * Evaluating an agent on a recipe's evaluation (its environments, held-out seeds and settings),
 * as a run does before training and after each stage, and as `mtrl eval` does for a run's final
 * checkpoint or any model folder.
 *
 * @since 0.1.0
 */
import { EnvError, type Env, type Trajectory } from '@mtrl/core'
import { Evaluate, Transcript, type Summary } from '@mtrl/eval'
import { Ledger, Progress, RunDir, TestLooks } from '@mtrl/experiment'
import { Sampler, type Agent } from '@mtrl/policy'
import { Rollout } from '@mtrl/rollout'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { source, type EnvConfig } from './EnvConfig.js'
import * as Model from './Model.js'
import * as Recipe from './Recipe.js'
import { failed, type Failed } from './RunError.js'
import { generatorFor, rolloutOptions } from './internal/context.js'
import * as Looks from './internal/looks.js'

/** What to evaluate: a model folder, and the recipe whose evaluation it plays. @category models */
export interface Target {
  readonly recipe: Recipe.Resolved
  readonly model: Recipe.PretrainedModel
  /** The recipe the model was trained with, as its run recorded it (a run's checkpoint), before any override of `recipe`. */
  readonly trained?: Recipe.Resolved
}

/**
 * Evaluates the agent on every evaluation environment (seeds and settings of the recipe); the
 * first environment failure is an error naming the environment. The caller owns the sources.
 *
 * @category evaluation
 */
export const all =
  (
    agent: Agent.Agent,
    recipe: Recipe.Resolved,
    sources: ReadonlyArray<Env.EnvSource>,
    onEpisode?: (episode: Trajectory.Trajectory) => void
  ): TE.TaskEither<Failed, ReadonlyArray<Summary.Summary>> =>
  async () => {
    const session = Sampler.make(agent.policy, { slots: recipe.eval.batch, maxLen: agent.contextLength })
    try {
      const { envs: _envs, ...settings } = recipe.eval
      const options = {
        ...settings,
        rollout: (s: Env.EnvSource) => rolloutOptions(s, recipe.rollout, undefined),
        seed: recipe.seed + 1000,
        ...(onEpisode === undefined ? {} : { onEpisode })
      }
      const results = await Evaluate.runEach(options)(generatorFor(agent, session))(sources)()
      return E.mapLeft((e: { env: string; error: EnvError.EnvError }) => failed(`evaluation on ${e.env}: ${EnvError.message(e.error)}`))(results)
    } finally {
      session.dispose()
    }
  }

/** A run's final checkpoint on the run's own evaluation, from its `recipe.json` (so it reproduces the run's last evaluation). @category constructors */
export const ofRun =
  (run: RunDir.RunDir) =>
  (recipeJson: unknown): E.Either<string, Target> =>
    pipe(
      Recipe.decode(recipeJson),
      E.mapLeft((e) => `${run.file('recipe.json')}: ${e}`),
      E.chain((recipe) => {
        const path = Progress.finalCheckpoint(run)
        return path === undefined
          ? E.left(`${run.path} has no finished stage to evaluate`)
          : E.right({ recipe, model: { kind: 'checkpoint' as const, path }, trained: recipe })
      })
    )

/**
 * A checkpoint of a run (any stage's end or RL iteration) on one environment, played as the run
 * played its evaluations: the run's rollout settings (system prompt, tokens per action), seed and
 * evaluation settings, from its `recipe.json`. A checkpoint alone does not record them, and a
 * policy trained with one system prompt plays worse with another.
 *
 * @category constructors
 */
export const ofRunCheckpoint =
  (run: RunDir.RunDir, path: string, env: EnvConfig) =>
  (recipeJson: unknown): E.Either<string, Target> =>
    pipe(
      Recipe.decode(recipeJson),
      E.mapLeft((e) => `${run.file('recipe.json')}: ${e}`),
      E.map((recipe) => ({ recipe: { ...recipe, eval: { ...recipe.eval, envs: [env] } }, model: { kind: 'checkpoint' as const, path }, trained: recipe }))
    )

/** An mtrl checkpoint (or a Hugging Face folder) on one environment, with the default evaluation. @category constructors */
export const ofFolder = (path: string, kind: 'checkpoint' | 'hf', env: EnvConfig): Target => ({
  recipe: Recipe.resolve({ name: 'eval', stages: [], eval: { envs: [env] } }),
  model: { kind, path }
})

/** A run's `recipe.json`, parsed (an unreadable or bad file is an error naming it). */
const recipeOf = (run: RunDir.RunDir): E.Either<string, unknown> =>
  E.tryCatch(
    () => run.readJson('recipe.json'),
    (e) => `${run.file('recipe.json')}: ${e instanceof Error ? e.message : String(e)}`
  )

/** The run folder's final checkpoint on the run's own evaluation ({@link ofRun}, its `recipe.json` read). @category constructors */
export const ofRunDir = (path: string): E.Either<string, Target> => {
  const run = RunDir.open(path)
  return E.chain(ofRun(run))(recipeOf(run))
}

/**
 * A checkpoint on `env`: inside a run (RUN/checkpoints/stage-N/...) with the run's rollout and
 * evaluation settings ({@link ofRunCheckpoint}), else (or a Hugging Face folder, `hf`) with the
 * defaults ({@link ofFolder}); `note` is told which, and why it matters.
 *
 * @category constructors
 */
export const ofCheckpoint = (path: string, env: EnvConfig, hf: boolean, note: (text: string) => void = () => undefined): E.Either<string, Target> => {
  const run = hf ? undefined : Progress.runOfCheckpoint(path)
  if (run === undefined) {
    if (!hf)
      note(
        `${path}: not inside a run (no recipe.json in the folder above checkpoints/stage-N), so it plays with the default rollout settings (system prompt ${JSON.stringify(Rollout.defaultOptions.systemPrompt)}); a policy trained with another system prompt plays off its distribution`
      )
    return E.right(ofFolder(path, hf ? 'hf' : 'checkpoint', env))
  }
  note(`${path}: a checkpoint of ${run.path}, played with its rollout settings (system prompt, tokens per action) and evaluation settings`)
  return E.chain(ofRunCheckpoint(run, path, env))(recipeOf(run))
}

/**
 * Overrides of a recipe's evaluation (`mtrl eval`'s flags): `split` or `seedBase` choose the
 * held-out seeds (neither: the recipe's own), `episodes`, `temperature`, and `seed` (the
 * sampling's: the recipe's training seed).
 *
 * @category models
 * @since 0.2.0
 */
export interface Overrides {
  readonly split?: string | undefined
  readonly seedBase?: number | undefined
  readonly episodes?: number | undefined
  readonly temperature?: number | undefined
  readonly seed?: number | undefined
}

/** The target's recipe with `overrides` over its evaluation; a split other than validation or test is an error naming it. @category combinators @since 0.2.0 */
export const withOverrides =
  (overrides: Overrides) =>
  (target: Target): E.Either<string, Target> => {
    const { recipe } = target
    const { split, seedBase, episodes = recipe.eval.episodes, temperature = recipe.eval.temperature, seed = recipe.seed } = overrides
    if (split !== undefined && !Evaluate.Split.is(split)) return E.left(`--split ${split}: expected validation or test`)
    const seeds = seedBase !== undefined ? Evaluate.resolve({ seedBase }) : split !== undefined ? Evaluate.resolve({ split }) : recipe.eval
    const evaluation = { ...recipe.eval, episodes, temperature, split: seeds.split, seedBase: seeds.seedBase }
    return E.right({ ...target, recipe: { ...recipe, seed, eval: evaluation } })
  }

/** @category models */
export interface Options {
  /** Notes for people before the work starts (the sandbox an SWE environment uses). */
  readonly note?: (text: string) => void
  /** Each episode played, as a transcript (prompt, actions, observations, rewards as text). */
  readonly onTranscript?: (transcript: Transcript.Transcript) => void
  /**
   * The test-seed ledger and the backend: an evaluation on test seeds is refused when another
   * checkpoint of the same recipe version and training seed was looked at (`TestLooks.before` of
   * @mtrl/experiment), and recorded; the same checkpoint giving another figure than before is an
   * error. None: nothing is checked or recorded.
   */
  readonly looks?: { readonly ledger: string; readonly backend: string }
}

/** The ledger's view of a target: the recipe it was trained with and what plays. */
const lookTarget = (target: Target): Looks.Target => ({
  trained: target.trained,
  path: target.model.path,
  checkpoint: Ledger.checkpointHash(target.model.path) ?? null
})

/** Evaluates, checking the test-seed ledger before and recording after when the evaluation plays test seeds. */
const looked =
  (options: Options, target: Target, evaluate: TE.TaskEither<Failed, ReadonlyArray<Summary.Summary>>): TE.TaskEither<Failed, ReadonlyArray<Summary.Summary>> =>
  async () => {
    const { looks, note = () => undefined } = options
    if (looks === undefined || !TestLooks.touchesTest(target.recipe.eval.seedBase, target.recipe.eval.episodes)) return evaluate()
    const seen = lookTarget(target)
    const refused = Looks.refusal(looks, seen)
    if (E.isLeft(refused)) return E.left(failed(refused.left))
    const results = await evaluate()
    if (E.isLeft(results)) return results
    const recorded = Looks.recordEval(looks, seen, target.recipe)(results.right)
    if (E.isLeft(recorded)) return E.left(failed(`the test-seed ledger: ${recorded.left}`))
    recorded.right.notes.forEach(note)
    return recorded.right.mismatch === undefined ? results : E.left(failed(recorded.right.mismatch))
  }

/**
 * Loads the target's model and evaluates it on the target recipe's evaluation; everything it
 * built is disposed. On test seeds with `looks`, the test-seed ledger is checked first and the
 * look recorded after (see {@link Options}).
 *
 * @category evaluation
 */
export const run =
  (options: Options = {}) =>
  (target: Target): TE.TaskEither<Failed, ReadonlyArray<Summary.Summary>> =>
    looked(options, target, play(options, target))

/** Loads the target's model and evaluates it. */
const play =
  (options: Options, target: Target): TE.TaskEither<Failed, ReadonlyArray<Summary.Summary>> =>
  async () => {
    const agent = await Model.pretrained(target.model)()
    if (E.isLeft(agent)) return agent
    const sources = target.recipe.eval.envs.map((env) => source(env, options.note))
    try {
      const { onTranscript } = options
      const toText = Transcript.make(agent.right.tokenizer.decode)
      return await all(agent.right, target.recipe, sources, onTranscript && ((episode) => onTranscript(toText(episode))))()
    } finally {
      agent.right.dispose()
      sources.forEach((s) => s.dispose())
    }
  }
