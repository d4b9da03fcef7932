/**
 * Recipes: a training pipeline as JSON. A recipe is a list of stages (SFT or RL), each with
 * its own environment, so an SFT warm start and a curriculum from simple to complex games are
 * both plain recipes; then an evaluation. Every choice the paper ablates is a field.
 *
 * The stage codecs are the libraries' option codecs (`Sft.Settings`, `Demonstrations.Settings`,
 * `Config.Config`, `Rollout.Options`, `Evaluate.Settings`, `ModelConfig.Settings`), so a field
 * means and checks what the library says. The whole recipe is validated before any work:
 * unknown fields and bad values are rejected with the path of the field and what was expected,
 * estimator options included. Every check is in the codecs: the rules that bind fields (an SFT
 * stage's demonstrations, a judge's agent, a stage's replicas and the recipe's critic, a model's
 * heads and width, each RL stage's trainer configuration) are `Decode.withRules` refinements of
 * the stage and recipe codecs, each naming its field. {@link resolve} fills the defaults (the libraries'); the resolved
 * recipe is saved with the run.
 *
 * @since 0.1.0
 */
import { Decode, Numbers } from '@mtrl/core'
import { Evaluate } from '@mtrl/eval'
import { Grid } from '@mtrl/experiment'
import { ModelConfig, WordTokenizer } from '@mtrl/policy'
import { Corpus } from '@mtrl/pretrain'
import { RewardSpec } from '@mtrl/rewards'
import { Rollout } from '@mtrl/rollout'
import { LocalWorkers } from '@mtrl/rollout-queue'
import { Algorithm as TrainerAlgorithm, Config as TrainerConfig } from '@mtrl/trainer-rl'
import { Demonstrations, Sft } from '@mtrl/trainer-sft'
import * as E from 'fp-ts/lib/Either.js'
import { flow, pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import { EnvConfig, hasExpert } from './EnvConfig.js'
import { withMoves } from './internal/movedFields.js'

/**
 * A small transformer trained from scratch with a word-level tokenizer built from the
 * environments' text: the architecture fields of `ModelConfig.Settings`, and `corpusEpisodes`
 * (expert episodes per environment whose text builds the vocabulary; unused when the first stage
 * is a pretrain stage, whose transcripts build it), `maxVocab`, and `corpusEnvs`: the
 * environments whose expert episodes build the vocabulary, one corpus each, in order (default
 * {@link corpusEnvs}: every stage's environment, then the evaluation's; a repeated environment
 * gives another corpus, so the vocabulary's order, and with it the model, depends on every stage).
 * {@link sftOnly} pins it, so that the SFT stages alone train the model the whole recipe's do.
 */
export const ScratchModel = t.intersection([
  t.type({ kind: t.literal('scratch') }),
  ModelConfig.Settings,
  t.partial({ corpusEpisodes: Numbers.PositiveInt, maxVocab: Numbers.PositiveInt, corpusEnvs: t.array(EnvConfig) })
])
export type ScratchModel = t.TypeOf<typeof ScratchModel>

/** A local Hugging Face folder (config.json, model.safetensors, tokenizer.json), optionally with LoRA adapters and another context length. */
export const HfModel = t.intersection([
  t.type({ kind: t.literal('hf'), path: t.string }),
  t.partial({ lora: t.partial({ rank: Numbers.PositiveInt, alpha: Numbers.Positive }), maxLen: Numbers.PositiveInt })
])
/** An mtrl checkpoint folder. */
export const CheckpointModel = t.type({ kind: t.literal('checkpoint'), path: t.string })
/**
 * A base model (issue 40): an mtrl checkpoint built by a pretrain stage (`recipes/base.json`),
 * with its tokenizer and chat template; `path` is the checkpoint folder or the run folder that
 * built it (its last finished stage).
 */
export const BaseModel = t.type({ kind: t.literal('base'), path: t.string })
export const PretrainedModel = t.union([HfModel, CheckpointModel, BaseModel])
export type PretrainedModel = t.TypeOf<typeof PretrainedModel>
export const Model = t.union([ScratchModel, PretrainedModel])
export type Model = t.TypeOf<typeof Model>

/**
 * Ending an SFT stage on a held-out check: from step `after` (default 0), every `every` steps,
 * the agent plays `episodes` (default 50) greedy games of the stage's environment on
 * {@link untilSeedBase}'s seeds; the stage ends at the first check that wins at least `success`
 * of them. For a prior of a chosen strength (a weak prior for RL to lift) without guessing the
 * step at which a run leaves its plateau, which differs from seed to seed.
 */
export const SftUntil = t.intersection([
  t.type({ success: Numbers.Fraction, every: Numbers.PositiveInt }),
  t.partial({ episodes: Numbers.PositiveInt, after: Numbers.NonNegativeInt })
])
export type SftUntil = t.TypeOf<typeof SftUntil>

/** The first seed of an SFT stage's held-out checks: in the validation range (never the test seeds), 2.5e8 past the seeds validation evaluations play. */
export const untilSeedBase = Evaluate.splitSeedBase.validation + 250_000_000

const SftStageFields = t.intersection([
  t.type({ kind: t.literal('sft'), env: EnvConfig }),
  t.partial({ data: t.string, until: SftUntil, replay: Corpus.Settings }),
  Demonstrations.Settings,
  Sft.Settings,
  Sft.RunSettings
])

/** An SFT stage's rules: demonstrations to learn from (episodes of an expert the environment has, or a file); checks that play the trained weights. */
const sftRules = (stage: t.TypeOf<typeof SftStageFields>): ReadonlyArray<Decode.Violation> => {
  const rule = (path: ReadonlyArray<string>, actual: unknown, message: string): Decode.Violation => ({ path, expected: message, actual, message })
  if (stage.episodes === undefined && stage.data === undefined)
    return [rule([], stage, 'an sft stage needs "episodes" (expert demonstrations) or "data" (a JSONL file)')]
  return [
    ...(stage.data === undefined && !hasExpert(stage.env)
      ? [rule(['env'], stage.env, `${stage.env.kind} environments have no expert: give "data" (a JSONL file)`)]
      : []),
    ...(stage.until !== undefined && (stage.emaDecay ?? 0) > 0
      ? [
          rule(
            ['until'],
            stage.until,
            `expected no weight average (emaDecay 0): the checks play the trained weights, not their average, got emaDecay ${stage.emaDecay}`
          )
        ]
      : [])
  ]
}

/**
 * SFT on expert demonstrations: `episodes` from the environment's expert, or a JSONL file
 * (`data`); `until`: end it early on a held-out check; `replay`: pretraining transcripts (games
 * played without a plan, a pretrain stage's `Corpus` settings) mixed into the demonstrations, so
 * that fine-tuning a base on a narrow task keeps what the base knew of the others.
 */
export const SftStage = Decode.withRules(SftStageFields, sftRules)
export type SftStage = t.TypeOf<typeof SftStage>

/** The trainer configuration's fields an RL stage sets: the algorithm, the KL term, and any part of each slice (`TrainerConfig.stageProps`). */
const trainerProps = TrainerConfig.stageProps
/** Rollout settings; all optional, over the recipe-wide `rollout`. */
export const RolloutSettings = t.partial({ ...Rollout.Options.types[0].props, ...Rollout.Options.types[1].props })
export type RolloutSettings = t.TypeOf<typeof RolloutSettings>

/**
 * A judge model that scores the runs of an agent written as code, group by group (RULER-style,
 * `@mtrl/agent-rl` `Judge`): its OpenAI-compatible endpoint `url` (e.g.
 * `http://127.0.0.1:8001/v1`) and `model`; `apiKeyEnv` names the environment variable that holds
 * its key (never the key itself in a recipe); `rubric` (default `Judge.defaultRubric`);
 * `jsonSchema` (default true: ask for the answer's JSON schema); `temperature` (default 0).
 */
export const JudgeSettings = t.intersection([
  t.type({ url: t.string, model: t.string }),
  t.partial({ apiKeyEnv: t.string, rubric: t.string, jsonSchema: t.boolean, temperature: t.number })
])
export type JudgeSettings = t.TypeOf<typeof JudgeSettings>

const RlStageFields = t.intersection([
  t.type({ kind: t.literal('rl'), env: EnvConfig, iterations: Numbers.PositiveInt }),
  t.partial({
    reward: RewardSpec.RewardSpec,
    rollout: RolloutSettings,
    replicas: Numbers.PositiveInt,
    rolloutThreads: Numbers.PositiveInt,
    agent: t.string,
    judge: JudgeSettings,
    ...trainerProps
  })
])
type RlStageFields = t.TypeOf<typeof RlStageFields>

/**
 * RL on the policy's own episodes: `iterations` of (rollout, rewards, advantages, updates).
 * `replicas`: threads that share each minibatch's gradients (this one and `replicas - 1` workers,
 * `@mtrl/trainer-rl`'s `UpdateReplicas`; default 1), for backends that use one core (wasm).
 * `rolloutThreads`: threads that play each iteration's episodes (this one and `rolloutThreads - 1`
 * workers, `@mtrl/rollout-queue`'s `Threads`: the same episodes, token for token; default 1); not
 * with `agent` nor with `scaleOut`, which play the episodes elsewhere. With `maxStaleness` above 0
 * (the trainer's: play the next iterations' episodes while this thread updates), the episodes are
 * played by `rolloutThreads` worker threads (or by `scaleOut`'s workers); not with `agent`.
 * `agent`: a module (path from the working directory) that exports an agent written as code
 * (`@mtrl/agent-rl` `Play.Agent`, as `default` or `agent`): its runs play the episodes through the
 * policy served over the OpenAI API, and return their rewards; with a `reward` here, the agent
 * reports each call's environment step (`Play.TurnReport`) and the stage computes the reward from
 * them as for its own rollouts. `judge` (with `agent`, without `reward`): each group of runs is
 * scored by a judge model ({@link JudgeSettings}), whose scores are the runs' rewards.
 */
export const RlStage = Decode.withRules(RlStageFields, (stage) => rlRules(stage))
export type RlStage = t.TypeOf<typeof RlStage>

/**
 * Next-token pretraining on games played without a plan (`@mtrl/pretrain`): `episodes`
 * transcripts of a behaviour policy (uniform over admissible commands, `invalidShare` of
 * free-form ones) on the `mixture`'s environments (default: TextWorld w1..w8 o1..o12 q1..q8,
 * cooking, ALFWorld train), at most `maxTurns` turns each, on pretraining seeds (never an
 * evaluation's), rendered in the recipe's rollout layout; then the SFT loop on them (its
 * settings, with the pretrain defaults of docs/decisions/0016: every token trained on,
 * `contextWeight` 1). First in a recipe with a scratch model, its transcripts build the tokenizer.
 */
export const PretrainStage = t.intersection([t.type({ kind: t.literal('pretrain') }), Corpus.Settings, Sft.Settings, Sft.RunSettings])
export type PretrainStage = t.TypeOf<typeof PretrainStage>

export const Stage = t.union([SftStage, RlStage, PretrainStage])
export type Stage = t.TypeOf<typeof Stage>

/** Evaluation on held-out seeds (disjoint from every training seed), greedy by default. */
export const Eval = t.intersection([Evaluate.Settings, t.partial({ envs: t.array(EnvConfig) })])
export type Eval = t.TypeOf<typeof Eval>

/** Scale-out of RL rollouts: the rollout queue's settings (`redis`, `workers`, `groupsPerJob`, `queue`, as `mtrl worker --queue`). */
export const ScaleOut = LocalWorkers.Settings
export type ScaleOut = LocalWorkers.Settings

const RecipeFields = t.intersection([
  t.type({ name: t.string, stages: t.array(Stage) }),
  t.partial({
    description: t.string,
    seed: Numbers.NonNegativeInt,
    model: Model,
    critic: t.partial({ shareTrunk: t.boolean }),
    rollout: RolloutSettings,
    eval: Eval,
    /** Evaluate before training and after each stage (the summary's before/after SFT/after RL). */
    evalAfterEachStage: t.boolean,
    /**
     * Evaluate before training (default: as `evalAfterEachStage`); a model trained from scratch
     * wins nothing there, so a run on a budget skips it (verl's `val_before_train`).
     */
    evalBeforeTraining: t.boolean,
    checkpointEvery: Numbers.NonNegativeInt,
    /** RL episodes played by worker processes over a Redis queue (`--redis`, `--workers` override). */
    scaleOut: ScaleOut,
    /** For `mtrl ablate`: dotted recipe paths and their values (a cell per combination), seeds repeated. */
    ablation: t.intersection([t.type({ grid: t.record(t.string, t.array(t.unknown)) }), t.partial({ seeds: t.array(Numbers.NonNegativeInt) })])
  })
])

/**
 * The rules across a recipe's parts: at least one stage; what a stage's update replicas and rollout
 * threads need of the recipe's critic and scale-out; heads that divide the width.
 */
const recipeRules = (recipe: t.TypeOf<typeof RecipeFields>): ReadonlyArray<Decode.Violation> => {
  const shareTrunk = recipe.critic?.shareTrunk === true
  const scaledOut = recipe.scaleOut !== undefined && (recipe.scaleOut.redis !== undefined || (recipe.scaleOut.workers ?? 0) > 0)
  const stageRules = recipe.stages.flatMap((stage, i): Decode.Violation[] => {
    if (stage.kind !== 'rl') return []
    const at = (field: string): ReadonlyArray<string> => ['stages', String(i), field]
    const threads = stage.rolloutThreads ?? 1
    return [
      ...((stage.replicas ?? 1) > 1 && shareTrunk && stageAlgorithm(stage).critic
        ? [
            {
              path: at('replicas'),
              expected: '1 with a critic that shares the policy trunk (critic.shareTrunk: its update is one pass in one thread)',
              actual: stage.replicas
            }
          ]
        : []),
      ...(threads > 1 && scaledOut ? [{ path: at('rolloutThreads'), expected: '1 with scaleOut (worker processes play the episodes)', actual: threads }] : [])
    ]
  })
  const { model } = recipe
  return [
    ...(recipe.stages.length === 0 ? [{ path: ['stages'], expected: 'at least one stage', actual: recipe.stages }] : []),
    ...stageRules,
    ...(model?.kind === 'scratch' && model.dModel !== undefined && model.heads !== undefined && model.dModel % model.heads !== 0
      ? [{ path: ['model', 'heads'], expected: `a divisor of model.dModel (${model.dModel})`, actual: model.heads }]
      : [])
  ]
}

/** A recipe (see the module's comment), with the rules that bind its parts. */
export const Recipe = Decode.withRules(RecipeFields, recipeRules)
export type Recipe = t.TypeOf<typeof Recipe>

/**
 * The pipeline's own defaults (no library reads them): the seed, evaluating after every stage,
 * and an RL checkpoint every 5 iterations. Everything else defaults in its library.
 */
export const defaults = { seed: 0, critic: { shareTrunk: false }, evalAfterEachStage: true, checkpointEvery: 5 } as const

/** A scratch model with every field filled: the library's architecture and corpus defaults under the recipe's. */
export type ResolvedScratch = ScratchModel & Required<ModelConfig.Settings> & { readonly corpusEpisodes: number; readonly maxVocab: number }

export type Resolved = Omit<Recipe, 'eval'> & {
  readonly seed: number
  readonly model: ResolvedScratch | PretrainedModel
  readonly critic: { readonly shareTrunk: boolean }
  readonly eval: Evaluate.Resolved & { readonly envs: ReadonlyArray<EnvConfig> }
  readonly evalAfterEachStage: boolean
  readonly evalBeforeTraining: boolean
  readonly checkpointEvery: number
}

/**
 * An RL stage's own rules: a judge scores an agent's runs (and replaces the reward); rollout
 * threads and playing ahead are for the trainer's own episodes; its trainer configuration decodes
 * (estimator options included).
 */
const rlRules = (stage: RlStageFields): ReadonlyArray<Decode.Violation> => {
  const threads = stage.rolloutThreads ?? 1
  const trainer = Decode.decode('trainer configuration', TrainerConfig.Config)(trainerConfig(stage, Rollout.defaultOptions, 0))
  return [
    ...(stage.judge !== undefined && stage.agent === undefined
      ? [{ path: ['judge'], expected: 'an agent', actual: stage.judge, message: 'a judge scores the runs of an agent written as code: give "agent" too' }]
      : []),
    ...(stage.judge !== undefined && stage.reward !== undefined
      ? [
          {
            path: ['reward'],
            expected: 'no reward',
            actual: stage.reward,
            message: "expected no reward with a judge: the judge's scores are the runs' rewards"
          }
        ]
      : []),
    ...(threads > 1 && stage.agent !== undefined
      ? [{ path: ['rolloutThreads'], expected: '1 with an agent written as code (its runs play through the served policy)', actual: threads }]
      : []),
    ...((stage.maxStaleness ?? 0) > 0 && stage.agent !== undefined
      ? [
          {
            path: ['maxStaleness'],
            expected: '0 with an agent written as code (its runs play through the policy served from the updating thread)',
            actual: stage.maxStaleness
          }
        ]
      : []),
    ...(E.isLeft(trainer)
      ? trainer.left.issues.map((issue) => ({
          path: issue.path === '' ? [] : issue.path.split('.'),
          expected: issue.expected,
          actual: issue.actual,
          message: issue.message ?? `expected ${issue.expected}, got ${issue.actual}`
        }))
      : [])
  ]
}

/** Where the fields of an RL stage's flat configuration (before 0.6) went in the nested one. */
export { movedFields } from './internal/movedFields.js'

/** Decodes a recipe strictly (unknown fields are errors), checks it whole, and fills its defaults. */
export const decode = (json: unknown): E.Either<string, Resolved> =>
  pipe(Decode.decodeStrict('recipe', Recipe)(json), E.bimap(flow(withMoves, Decode.formatError), resolve))

/**
 * The trainer configuration of an RL stage: the library's defaults under the stage's fields; a
 * checkpoint every `checkpointEvery` iterations (0: only on a stop).
 */
export const trainerConfig = (stage: RlStage, rollout: Rollout.Options, seed: number, checkpointEvery = 0): TrainerConfig.Config => {
  const {
    kind: _kind,
    env: _env,
    iterations,
    reward: _reward,
    rollout: _stageRollout,
    replicas: _replicas,
    rolloutThreads: _threads,
    agent: _agent,
    judge: _judge,
    ...overrides
  } = stage
  return TrainerConfig.override({ ...overrides, policy: { decayIterations: iterations, ...overrides.policy }, rollout, seed, checkpointEvery })(
    TrainerConfig.defaultConfig
  )
}

/**
 * An RL stage's trainer configuration as the trainer runs it (`TrainerConfig.resolve`: the
 * algorithm's estimator, policy loss, aggregation and KL term filled in), and its algorithm.
 */
export const resolvedTrainer = (
  stage: RlStage,
  rollout: Rollout.Options = Rollout.defaultOptions,
  seed = 0,
  checkpointEvery = 0
): { readonly config: TrainerConfig.Resolved; readonly algorithm: TrainerAlgorithm.Algorithm } => {
  const config = trainerConfig(stage, rollout, seed, checkpointEvery)
  return { config: TrainerConfig.resolve(config), algorithm: TrainerAlgorithm.registry[config.algorithm] }
}

/** The algorithm an RL stage trains with (the trainer's default when it names none). */
export const stageAlgorithm = (stage: RlStage): TrainerAlgorithm.Algorithm => resolvedTrainer(stage).algorithm

/** The environment a stage plays: none for a pretrain stage (a mixture). */
export const stageEnv = (stage: Stage): EnvConfig | undefined => (stage.kind === 'pretrain' ? undefined : stage.env)

/**
 * The environments whose expert episodes build a scratch model's vocabulary: the model's
 * `corpusEnvs` when it names them, else every stage's environment (pretrain stages have none) and
 * then the evaluation's, one corpus each.
 *
 * @category accessors
 * @since 0.9.0
 */
export const corpusEnvs = (recipe: Resolved): ReadonlyArray<EnvConfig> =>
  recipe.model.kind === 'scratch' && recipe.model.corpusEnvs !== undefined
    ? recipe.model.corpusEnvs
    : [...recipe.stages.flatMap((s) => stageEnv(s) ?? []), ...recipe.eval.envs]

/**
 * The recipe narrowed to its SFT stages (`mtrl sft`), training the model its SFT stages train in
 * the whole recipe: a scratch model's vocabulary stays built from the whole recipe's
 * environments ({@link corpusEnvs}, pinned). `undefined` when it has no SFT stage.
 *
 * @example
 * import { Recipe } from '@mtrl/recipe'
 * const env = { kind: 'textworld', settings: 'w2-o3-q4' } as const
 * const full = Recipe.resolve({ name: 'r', stages: [{ kind: 'sft', env }, { kind: 'rl', env, iterations: 5 }] })
 * Recipe.sftOnly(full)?.stages.length // 1
 * Recipe.corpusEnvs(Recipe.sftOnly(full)!).length // 3: both stages' environments and the evaluation's, as in the whole recipe
 *
 * @category combinators
 * @since 0.9.0
 */
export const sftOnly = (recipe: Resolved): Resolved | undefined => {
  const stages = recipe.stages.filter((s) => s.kind === 'sft')
  if (stages.length === 0) return undefined
  const model =
    recipe.model.kind === 'scratch' && recipe.stages[0]?.kind !== 'pretrain' ? { ...recipe.model, corpusEnvs: [...corpusEnvs(recipe)] } : recipe.model
  return { ...recipe, model, stages }
}

/** Evaluation environments when the recipe names none: the last stage's (the one trained for last, the target of a curriculum); none after a pretrain stage. */
export const lastStageEnv = (recipe: Recipe): EnvConfig[] => recipe.stages.slice(-1).flatMap((s) => stageEnv(s) ?? [])

/** One run of an ablation: its cell, seed and recipe. */
export interface PlanItem {
  readonly cell: string
  readonly seed: number
  readonly recipe: Resolved
}

/** Every cell x seed of an ablation as a decoded recipe (without its `ablation`); the first bad cell is an error naming it. */
export const ablationPlan = (json: unknown, grid: Grid.Grid, seeds: ReadonlyArray<number>): E.Either<string, ReadonlyArray<PlanItem>> =>
  pipe(
    Grid.variants(json, grid, seeds),
    E.chain(
      E.traverseArray(({ cell, seed, json: variant }) => {
        const { ablation: _a, ...recipe } = variant as Record<string, unknown>
        return pipe(
          decode(recipe),
          E.bimap(
            (e) => `cell ${cell}, seed ${seed}: ${e}`,
            (decoded) => ({ cell, seed, recipe: decoded })
          )
        )
      })
    )
  )

/** Fills the defaults of a decoded recipe. */
export const resolve = (recipe: Recipe): Resolved => {
  const scratch = {
    kind: 'scratch' as const,
    ...ModelConfig.defaultSettings,
    corpusEpisodes: Demonstrations.defaultCorpusEpisodes,
    maxVocab: WordTokenizer.defaultOptions.maxVocab
  }
  const model = recipe.model === undefined ? scratch : recipe.model.kind === 'scratch' ? { ...scratch, ...recipe.model } : recipe.model
  return {
    ...recipe,
    seed: recipe.seed ?? defaults.seed,
    model,
    critic: { ...defaults.critic, ...recipe.critic },
    eval: { ...Evaluate.resolve(recipe.eval ?? {}), envs: recipe.eval?.envs ?? lastStageEnv(recipe) },
    evalAfterEachStage: recipe.evalAfterEachStage ?? defaults.evalAfterEachStage,
    evalBeforeTraining: recipe.evalBeforeTraining ?? recipe.evalAfterEachStage ?? defaults.evalAfterEachStage,
    checkpointEvery: recipe.checkpointEvery ?? defaults.checkpointEvery
  }
}
