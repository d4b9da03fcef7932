/**
 * The Train panel's recipe form: a preset, a model size, the SFT and RL fields; each change
 * writes the recipe's JSON into `#recipe-json`, which the user may also edit by hand (the JSON is
 * what trains).
 */
import type { EnvChoice } from '../worker/protocol.js'
import { byId, numberIn, options } from './dom.js'
import {
  algorithms,
  compose,
  fitGroups,
  modelLabel,
  modelSizes,
  presets,
  type Algorithm,
  type ModelSize,
  type PresetName,
  type RecipeFields
} from './recipes.js'

/** Each field's input id. */
const ids = {
  preset: 'recipe-preset',
  model: 'model-size',
  sftEpisodes: 'sft-episodes',
  sftEpochs: 'sft-epochs',
  sftBatch: 'sft-batch',
  sftLr: 'sft-lr',
  rlIterations: 'rl-iterations',
  rlAlgorithm: 'rl-algorithm',
  rlSeeds: 'rl-seeds',
  rlGroup: 'rl-group',
  evalEpisodes: 'recipe-eval-episodes',
  evalBefore: 'recipe-eval-before'
} as const

const input = (id: string): HTMLInputElement => byId<HTMLInputElement>(id)

const writeFields = (fields: RecipeFields): void => {
  byId<HTMLSelectElement>(ids.model).value = fields.model
  input(ids.sftEpisodes).value = String(fields.sft.episodes)
  input(ids.sftEpochs).value = String(fields.sft.epochs)
  input(ids.sftBatch).value = String(fields.sft.batchSize)
  input(ids.sftLr).value = String(fields.sft.learningRate)
  input(ids.rlIterations).value = String(fields.rl.iterations)
  byId<HTMLSelectElement>(ids.rlAlgorithm).value = fields.rl.algorithm
  input(ids.rlSeeds).value = String(fields.rl.seedsPerIteration)
  input(ids.rlGroup).value = String(fields.rl.groupSize)
  input(ids.evalEpisodes).value = String(fields.evalEpisodes)
  input(ids.evalBefore).checked = fields.evalBeforeTraining
}

/** The form's fields, each defaulting to the preset's when empty. */
const readFields = (preset: RecipeFields): RecipeFields => ({
  model: byId<HTMLSelectElement>(ids.model).value as ModelSize,
  sft: {
    episodes: numberIn(ids.sftEpisodes, preset.sft.episodes),
    epochs: numberIn(ids.sftEpochs, preset.sft.epochs),
    batchSize: numberIn(ids.sftBatch, preset.sft.batchSize),
    learningRate: numberIn(ids.sftLr, preset.sft.learningRate)
  },
  rl: {
    iterations: numberIn(ids.rlIterations, preset.rl.iterations),
    algorithm: byId<HTMLSelectElement>(ids.rlAlgorithm).value as Algorithm,
    seedsPerIteration: numberIn(ids.rlSeeds, preset.rl.seedsPerIteration),
    groupSize: numberIn(ids.rlGroup, preset.rl.groupSize)
  },
  evalEpisodes: numberIn(ids.evalEpisodes, preset.evalEpisodes),
  evalBeforeTraining: input(ids.evalBefore).checked
})

export interface RecipeForm {
  /** Selects `preset` and writes its recipe. */
  readonly choose: (preset: PresetName) => void
}

/** Wires the form: a change of the preset, a field or the game rewrites `#recipe-json`. */
export const mountRecipeForm = (game: { readonly value: () => EnvChoice; readonly onChange: (listener: () => void) => void }): RecipeForm => {
  const preset = byId<HTMLSelectElement>(ids.preset)
  preset.append(
    ...options([
      ['default', 'default (recipes/default.json)'],
      ['quick', 'quick (a smoke run, < 1 min)'],
      ['base', 'from the base (models/base: 60 demonstrations, then REINFORCE++)']
    ])
  )
  byId<HTMLSelectElement>(ids.model).append(...options(modelSizes.map((size) => [size, modelLabel(size)] as const)))
  byId<HTMLSelectElement>(ids.rlAlgorithm).append(...options(algorithms.map((a) => [a, a.toUpperCase()] as const)))
  const chosen = (): PresetName => preset.value as PresetName
  const write = (): void => {
    const recipe = compose(chosen(), readFields(presets[chosen()]), game.value())
    byId<HTMLTextAreaElement>('recipe-json').value = JSON.stringify(recipe, null, 2)
  }
  const choose = (name: PresetName): void => {
    preset.value = name
    writeFields(presets[name])
    write()
  }
  /** A grouped algorithm (GRPO, RLOO) gets groups it can compare. */
  const fitAlgorithm = (): void => {
    const fields = readFields(presets[chosen()])
    writeFields({ ...fields, rl: fitGroups(fields.rl) })
    write()
  }
  preset.addEventListener('change', () => choose(chosen()))
  for (const id of Object.values(ids)) if (id !== ids.preset && id !== ids.rlAlgorithm) byId(id).addEventListener('change', write)
  byId(ids.rlAlgorithm).addEventListener('change', fitAlgorithm)
  game.onChange(write)
  choose('default')
  return { choose }
}
