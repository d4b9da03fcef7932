/**
 * The Train panel's recipes: the shipped `recipes/default.json` (SFT on expert games, then RL),
 * resized by the form's few fields, a quick preset for a smoke run, and the few-demonstrations
 * recipe from the shipped pretrained base (`models/base`: `recipes/paper-base`'s SFT and RL
 * stages). Pure: a form in, a recipe's JSON out, always one the browser can run ({@link browserSafe}).
 */
// the shipped recipes, bundled into the page (files of the workspace, not packages)
// eslint-disable-next-line @nx/enforce-module-boundaries
import defaultRecipe from '../../../../recipes/default.json' with { type: 'json' }
// eslint-disable-next-line @nx/enforce-module-boundaries
import fewDemosRecipe from '../../../../recipes/paper-base/few-demos-from-base.json' with { type: 'json' }
// eslint-disable-next-line @nx/enforce-module-boundaries
import liftRecipe from '../../../../recipes/paper-base/lift-from-base.json' with { type: 'json' }
import { Algorithm as TrainerAlgorithm } from '@mtrl/trainer-rl/settings'
import type { EnvChoice } from '../worker/protocol.js'

/** The RL algorithms the form offers: the trainer's registry (its tensor-free entry point). */
export const algorithms: ReadonlyArray<TrainerAlgorithm.Name> = TrainerAlgorithm.names
export type Algorithm = TrainerAlgorithm.Name

/** Whether an algorithm compares the episodes of a group (`Algorithm.registry[name].grouped`): it needs a group of at least 2. */
export const grouped = (algorithm: Algorithm): boolean => TrainerAlgorithm.registry[algorithm].grouped

/** The RL budget made fit for its algorithm: a grouped one gets groups of 4 (about the same episodes per iteration) when its group is smaller than 2. */
export const fitGroups = (rl: RecipeFields['rl']): RecipeFields['rl'] =>
  grouped(rl.algorithm) && rl.groupSize < 2
    ? { ...rl, groupSize: 4, seedsPerIteration: Math.max(1, Math.round((rl.seedsPerIteration * rl.groupSize) / 4)) }
    : rl

/** The model: the default recipe's transformer or a small one, both from scratch, or the shipped pretrained base. */
export const modelSizes = ['default', 'small', 'base'] as const
export type ModelSize = (typeof modelSizes)[number]
export const presetNames = ['default', 'quick', 'base'] as const
export type PresetName = (typeof presetNames)[number]

/** Where the worker keeps the shipped base (`models/base`, fetched with the page) in its file system. */
export const shippedBasePath = '/models/base'

/** What the form sets; everything else comes from `recipes/default.json`. */
export interface RecipeFields {
  readonly model: ModelSize
  readonly sft: { readonly episodes: number; readonly epochs: number; readonly batchSize: number; readonly learningRate: number }
  readonly rl: { readonly iterations: number; readonly algorithm: Algorithm; readonly seedsPerIteration: number; readonly groupSize: number }
  readonly evalEpisodes: number
  /** Evaluate the untrained model too (a model trained from scratch wins nothing there: it costs time, it shows the start). */
  readonly evalBeforeTraining: boolean
}

type Json = Record<string, unknown>
const base = defaultRecipe as unknown as Json & { readonly model: Json; readonly rollout: Json; readonly stages: ReadonlyArray<Json>; readonly eval: Json }
const baseSft = base.stages.find((s) => s['kind'] === 'sft')!
const baseRl = base.stages.find((s) => s['kind'] === 'rl')!
// the stages of the recipes from the pretrained base: few-demos-from-base's SFT, lift-from-base's REINFORCE++
const fewDemosSft = (fewDemosRecipe as unknown as { readonly stages: ReadonlyArray<Json> }).stages[0]!
const liftRl = (liftRecipe as unknown as { readonly stages: ReadonlyArray<Json> }).stages[0]!

/** The SFT and RL stages a preset's recipe resizes. */
const templates = (preset: PresetName): { readonly sft: Json; readonly rl: Json } =>
  preset === 'base' ? { sft: fewDemosSft, rl: liftRl } : { sft: baseSft, rl: baseRl }

/** A preset's SFT and RL fields from its template stages (their sizes, algorithm and budget). */
const fieldsOf = (template: { readonly sft: Json; readonly rl: Json }): Pick<RecipeFields, 'sft' | 'rl'> => ({
  sft: {
    episodes: template.sft['episodes'] as number,
    epochs: template.sft['epochs'] as number,
    batchSize: template.sft['batchSize'] as number,
    learningRate: template.sft['learningRate'] as number
  },
  rl: {
    iterations: template.rl['iterations'] as number,
    algorithm: template.rl['algorithm'] as Algorithm,
    ...(template.rl['budget'] as { readonly seedsPerIteration: number; readonly groupSize: number })
  }
})

/** The presets' fields: `default` is the shipped recipe's, `quick` a smoke run of well under a minute, `base` the paper-base recipes'. */
export const presets: { readonly [K in PresetName]: RecipeFields } = {
  default: { model: 'default', ...fieldsOf(templates('default')), evalEpisodes: base.eval['episodes'] as number, evalBeforeTraining: true },
  quick: {
    model: 'small',
    sft: { episodes: 24, epochs: 1, batchSize: 4, learningRate: 0.003 },
    rl: { iterations: 2, algorithm: 'grpo', seedsPerIteration: 4, groupSize: 2 },
    evalEpisodes: 10,
    evalBeforeTraining: false
  },
  base: { model: 'base', ...fieldsOf(templates('base')), evalEpisodes: base.eval['episodes'] as number, evalBeforeTraining: false }
}

/**
 * The model: the default recipe's transformer, or a small one (d 64, 2 layers, 4 heads), from
 * scratch (ALFWorld's longer episodes need a longer context); or the shipped base, whose size and
 * context are its own.
 */
const modelOf = (size: ModelSize, env: EnvChoice): Json =>
  size === 'base'
    ? { kind: 'base', path: shippedBasePath }
    : {
        ...base.model,
        ...(size === 'small' ? { dModel: 64, layers: 2, heads: 4 } : {}),
        ...(env.kind === 'alfworld' ? { maxLen: 768 } : {})
      }

/** A model size's label: `small (d 64, 2 layers, 4 heads)`, `base (models/base, pretrained: d 128, 2 layers, 8 heads)`. */
export const modelLabel = (size: ModelSize): string => {
  const m = modelOf(size === 'base' ? 'default' : size, { kind: 'textworld', settings: '' })
  const shape = `d ${String(m['dModel'])}, ${String(m['layers'])} layers, ${String(m['heads'])} heads`
  return size === 'base' ? `base (models/base, pretrained: ${shape})` : `${size} (${shape})`
}

/** The SFT stage: the template's, on `env`, with the form's size (warm-up no longer than a fifth of the steps). */
const sftStage = (template: Json, fields: RecipeFields['sft'], env: EnvChoice): Json => {
  const steps = Math.ceil((fields.episodes * 0.95) / fields.batchSize) * fields.epochs
  const warmupSteps = Math.min(template['warmupSteps'] as number, Math.max(1, Math.floor(steps / 5)))
  return { ...template, env, ...fields, warmupSteps, replicas: 1 }
}

/** The RL stage: the template's, on `env`, with the form's algorithm and budget (a critic's settings only for an algorithm that trains one: PPO). */
const rlStage = (template: Json, fields: RecipeFields['rl'], env: EnvChoice): Json => {
  const { critic, ...rest } = template
  return {
    ...rest,
    env,
    iterations: fields.iterations,
    algorithm: fields.algorithm,
    budget: { seedsPerIteration: fields.seedsPerIteration, groupSize: fields.groupSize },
    ...(TrainerAlgorithm.registry[fields.algorithm].critic ? { critic } : {})
  }
}

const described: { readonly [K in PresetName]: string } = {
  default: 'recipes/default.json',
  quick: 'A smoke run',
  base: 'recipes/paper-base (few-demos-from-base, lift-from-base)'
}

/** The recipe for `fields` on `env`: SFT (when it has episodes) then RL (when it has iterations), evaluated on `env`'s held-out seeds. */
export const compose = (preset: PresetName, fields: RecipeFields, env: EnvChoice): Json => {
  const template = templates(preset)
  const stages = [
    ...(fields.sft.episodes > 0 ? [sftStage(template.sft, fields.sft, env)] : []),
    ...(fields.rl.iterations > 0 ? [rlStage(template.rl, fields.rl, env)] : [])
  ]
  return {
    name: `web-${preset}`,
    description: `${described[preset]} in the browser: ${fields.model === 'base' ? 'from the pretrained base, ' : ''}SFT on expert games, then ${fields.rl.algorithm.toUpperCase()}`,
    seed: base['seed'],
    model: modelOf(fields.model, env),
    rollout: base.rollout,
    stages,
    eval: { ...base.eval, episodes: fields.evalEpisodes, batch: Math.min(fields.evalEpisodes, 50), envs: [env] },
    evalBeforeTraining: fields.evalBeforeTraining
  }
}

/** Without what needs Node's threads or servers: every stage on one thread (`replicas: 1`), no rollout threads, no playing ahead, no scale-out. */
export const browserSafe = (recipe: unknown): unknown => {
  if (typeof recipe !== 'object' || recipe === null || Array.isArray(recipe)) return recipe
  const { scaleOut: _scaleOut, ...rest } = recipe as Json
  const stages = Array.isArray(rest['stages'])
    ? (rest['stages'] as ReadonlyArray<unknown>).map((stage) => {
        if (typeof stage !== 'object' || stage === null) return stage
        const { rolloutThreads: _threads, maxStaleness: _staleness, ...fields } = stage as Json
        return { ...fields, replicas: 1 }
      })
    : rest['stages']
  return { ...rest, stages }
}
