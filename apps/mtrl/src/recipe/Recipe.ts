/**
 * Recipes: a training pipeline as JSON. A recipe is a list of stages (SFT or RL), each with
 * its own environment, so an SFT warm start and a curriculum from simple to complex games are
 * both plain recipes; then an evaluation. Every choice the paper ablates is a field.
 *
 * Unknown fields and bad values are rejected with the path of the field and what was expected.
 * {@link resolve} fills the defaults; the resolved recipe is saved with the run.
 */
import { Decode } from '@mtrl/core'
import { RewardSpec } from '@mtrl/rewards'
import { Rollout } from '@mtrl/rollout'
import { Config as TrainerConfig } from '@mtrl/trainer-rl'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import { EnvConfig } from './EnvConfig.js'

const refine = (name: string, ok: (n: number) => boolean) =>
  new t.Type<number, number, unknown>(
    name,
    (u): u is number => typeof u === 'number' && ok(u),
    (u, c) => (typeof u === 'number' && ok(u) ? t.success(u) : t.failure(u, c, name)),
    (a) => a
  )
export const PositiveInt = refine('a positive integer', (n) => Number.isInteger(n) && n > 0)
export const NonNegativeInt = refine('a non-negative integer', (n) => Number.isInteger(n) && n >= 0)
export const Positive = refine('a positive number', (n) => Number.isFinite(n) && n > 0)
export const NonNegative = refine('a non-negative number', (n) => Number.isFinite(n) && n >= 0)
export const Fraction = refine('a number in [0, 1)', (n) => n >= 0 && n < 1)

/** A small transformer trained from scratch with a word-level tokenizer built from the environment's text. */
export const ScratchModel = t.intersection([
  t.type({ kind: t.literal('scratch') }),
  t.partial({
    dModel: PositiveInt,
    layers: PositiveInt,
    heads: PositiveInt,
    ffn: PositiveInt,
    maxLen: PositiveInt,
    /** Episodes whose text builds the tokenizer's vocabulary (per stage environment). */
    corpusEpisodes: PositiveInt,
    /** Largest vocabulary of the word tokenizer (words beyond it are spelled in bytes). */
    maxVocab: PositiveInt,
    positional: t.keyof({ rope: null, learned: null }),
    norm: t.keyof({ rmsnorm: null, layernorm: null }),
    activation: t.keyof({ swiglu: null, gelu: null }),
    tiedEmbeddings: t.boolean,
    /** Add an embedding of each position's previous token to its input (faster copying from scratch; decision 0006). */
    prevTokenEmbedding: t.boolean,
    /** Previous positions mixed into every block's input (canon layers; 0 = off; decision 0007). */
    canonSpan: NonNegativeInt
  })
])
export type ScratchModel = t.TypeOf<typeof ScratchModel>

/** A local Hugging Face folder (config.json, model.safetensors, tokenizer.json) or an mtrl checkpoint. */
export const PretrainedModel = t.intersection([
  t.type({ kind: t.keyof({ hf: null, checkpoint: null }), path: t.string }),
  t.partial({ lora: t.partial({ rank: PositiveInt, alpha: Positive }) })
])
export type PretrainedModel = t.TypeOf<typeof PretrainedModel>
export const Model = t.union([ScratchModel, PretrainedModel])
export type Model = t.TypeOf<typeof Model>

/** SFT on expert demonstrations: `episodes` from the environment's expert, or a JSONL file. */
export const SftStage = t.intersection([
  t.type({ kind: t.literal('sft'), env: EnvConfig }),
  t.partial({
    episodes: PositiveInt,
    data: t.string,
    epochs: PositiveInt,
    batchSize: PositiveInt,
    learningRate: Positive,
    warmupSteps: NonNegativeInt,
    minLrRatio: Fraction,
    maxGradNorm: Positive,
    heldOutFraction: Fraction,
    /** Weight of the next-token loss on context (prompt and observation) tokens; 0: actions only. */
    contextWeight: NonNegative,
    /** Batch demonstrations of similar length together (less padding). */
    groupByLength: t.boolean,
    adamBeta1: Fraction,
    adamBeta2: Fraction,
    /** Per-turn probability of a detour (a random admissible action, not trained on) in expert demonstrations. */
    detourRate: Fraction,
    /** At most this many detours per demonstration (default 1). */
    maxDetours: PositiveInt,
    /** Return an exponential moving average of the weights with this decay (0: off). */
    emaDecay: Fraction,
    /** Data-parallel replicas, this thread included (default 1): each extra one is a worker thread on its own core. */
    replicas: PositiveInt,
    /** Write a mid-stage checkpoint every this many steps (default 200; 0: only on Ctrl-C), for `mtrl resume`. */
    checkpointEvery: NonNegativeInt
  })
])
export type SftStage = t.TypeOf<typeof SftStage>

const { rollout: _rollout, seed: _seed, checkpointEvery: _every, ...trainerProps } = TrainerConfig.Config.props
/** Rollout settings; all optional, over the recipe-wide `rollout`. */
export const RolloutSettings = t.partial({ ...Rollout.Options.types[0].props, ...Rollout.Options.types[1].props })
export type RolloutSettings = t.TypeOf<typeof RolloutSettings>

/** RL on the policy's own episodes: `iterations` of (rollout, rewards, advantages, updates). */
export const RlStage = t.intersection([
  t.type({ kind: t.literal('rl'), env: EnvConfig, iterations: PositiveInt }),
  t.partial({ reward: RewardSpec.RewardSpec, rollout: RolloutSettings, ...trainerProps })
])
export type RlStage = t.TypeOf<typeof RlStage>

export const Stage = t.union([SftStage, RlStage])
export type Stage = t.TypeOf<typeof Stage>

/** Evaluation on held-out seeds (disjoint from every training seed), greedy by default. */
export const Eval = t.partial({
  episodes: PositiveInt,
  envs: t.array(EnvConfig),
  temperature: refine('a number >= 0', (n) => Number.isFinite(n) && n >= 0),
  /** Evaluation seeds are seedBase + 0, 1, ...; training seeds are drawn below 2^31. */
  seedBase: NonNegativeInt,
  batch: PositiveInt
})
export type Eval = t.TypeOf<typeof Eval>

/**
 * Scale-out of RL rollouts: `redis`, the queue's server (default: a local one when `workers` is
 * set); `workers`, worker processes to start on this machine; `groupsPerJob`, groups per job
 * (default: split evenly over the live workers); `queue`, the queue's name (default `mtrl-rollout`,
 * as `mtrl worker --queue`).
 */
export const ScaleOut = t.partial({ redis: t.string, workers: NonNegativeInt, groupsPerJob: PositiveInt, queue: t.string })
export type ScaleOut = t.TypeOf<typeof ScaleOut>

export const Recipe = t.intersection([
  t.type({ name: t.string, stages: t.array(Stage) }),
  t.partial({
    description: t.string,
    seed: NonNegativeInt,
    model: Model,
    critic: t.partial({ shareTrunk: t.boolean }),
    rollout: RolloutSettings,
    eval: Eval,
    /** Evaluate before training and after each stage (the summary's before/after SFT/after RL). */
    evalAfterEachStage: t.boolean,
    checkpointEvery: NonNegativeInt,
    /** RL episodes played by worker processes over a Redis queue (`--redis`, `--workers` override). */
    scaleOut: ScaleOut,
    /** For `mtrl ablate`: dotted recipe paths and their values (a cell per combination), seeds repeated. */
    ablation: t.intersection([t.type({ grid: t.record(t.string, t.array(t.unknown)) }), t.partial({ seeds: t.array(NonNegativeInt) })])
  })
])
export type Recipe = t.TypeOf<typeof Recipe>

/** Defaults of a recipe, filled by {@link resolve}. */
export const defaults = {
  seed: 0,
  model: { kind: 'scratch', dModel: 128, layers: 2, heads: 4, ffn: 512, maxLen: 512, corpusEpisodes: 400, positional: 'rope', norm: 'rmsnorm', activation: 'swiglu', tiedEmbeddings: true, prevTokenEmbedding: false, canonSpan: 0 },
  critic: { shareTrunk: false },
  eval: { episodes: 100, temperature: 0, seedBase: 3_000_000_000, batch: 50 },
  evalAfterEachStage: true,
  checkpointEvery: 5
} as const

export type Resolved = Recipe & {
  readonly seed: number
  readonly model: Model
  readonly critic: { readonly shareTrunk: boolean }
  readonly eval: Required<Omit<Eval, 'envs'>> & { readonly envs: ReadonlyArray<EnvConfig> }
  readonly evalAfterEachStage: boolean
  readonly checkpointEvery: number
}

const firstEnv = (recipe: Recipe): EnvConfig | undefined => {
  const last = recipe.stages[recipe.stages.length - 1]
  return last?.env
}

/** Checks what a codec cannot: at least one stage; an SFT stage has episodes or data. */
const checkSemantics = (recipe: Recipe): E.Either<string, Recipe> => {
  if (recipe.stages.length === 0) return E.left('invalid recipe:\n  stages: expected at least one stage, got []')
  for (const [i, stage] of recipe.stages.entries())
    if (stage.kind === 'sft' && stage.episodes === undefined && stage.data === undefined)
      return E.left(`invalid recipe:\n  stages.${i}: an sft stage needs "episodes" (expert demonstrations) or "data" (a JSONL file)`)
  if (recipe.model?.kind === 'scratch' && recipe.model.dModel !== undefined && recipe.model.heads !== undefined && recipe.model.dModel % recipe.model.heads !== 0)
    return E.left(`invalid recipe:\n  model.heads: expected a divisor of model.dModel (${recipe.model.dModel}), got ${recipe.model.heads}`)
  return E.right(recipe)
}

/** Decodes a recipe strictly (unknown fields are errors) and fills its defaults. */
export const decode = (json: unknown): E.Either<string, Resolved> =>
  pipe(
    Decode.decodeStrict('recipe', Recipe)(json),
    E.mapLeft(Decode.formatError),
    E.chain(checkSemantics),
    E.map(resolve)
  )

/** Fills the defaults of a decoded recipe. */
export const resolve = (recipe: Recipe): Resolved => {
  const model: Model = recipe.model === undefined ? defaults.model : recipe.model.kind === 'scratch' ? { ...defaults.model, ...recipe.model } : recipe.model
  const evalEnvs = recipe.eval?.envs ?? [firstEnv(recipe)].filter((e): e is EnvConfig => e !== undefined)
  return {
    ...recipe,
    seed: recipe.seed ?? defaults.seed,
    model,
    critic: { ...defaults.critic, ...recipe.critic },
    eval: { ...defaults.eval, ...recipe.eval, envs: evalEnvs },
    evalAfterEachStage: recipe.evalAfterEachStage ?? defaults.evalAfterEachStage,
    checkpointEvery: recipe.checkpointEvery ?? defaults.checkpointEvery
  }
}
