/**
 * LoRA adapters (Hu et al., 2021, https://arxiv.org/abs/2106.09685) on attention and MLP
 * projections: `W' = W + (alpha / rank) * B @ A`, with `A` [rank, in] random and `B` [out, rank]
 * zero, so an adapted model starts equal to its base. Names follow PEFT
 * (`model.layers.0.self_attn.q_proj.lora_A.weight`). With adapters, a policy's trainable
 * variables are the adapters only.
 *
 * @since 0.1.0
 */
import { Rng } from '@mtrl/core'
import type * as tf from '@tensorflow/tfjs'
import * as t from 'io-ts'
import { normal, variableOf } from './internal/weights.js'
import { layerPrefix } from './internal/transformer.js'
import type { ModelConfig } from './ModelConfig.js'

/**
 * Projections that can carry an adapter.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Target = t.keyof({ q_proj: null, k_proj: null, v_proj: null, o_proj: null, gate_proj: null, up_proj: null, down_proj: null })
/** @category models @since 0.1.0 */
export type Target = t.TypeOf<typeof Target>

/**
 * LoRA settings.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Options = t.type({ rank: t.number, alpha: t.number, targets: t.readonlyArray(Target) })
/** @category models @since 0.1.0 */
export type Options = t.TypeOf<typeof Options>

/**
 * Rank 8, alpha 16, on every attention and MLP projection.
 *
 * @category constructors
 * @since 0.1.0
 */
export const defaultOptions: Options = { rank: 8, alpha: 16, targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] }

/**
 * The factor applied to `B @ A`.
 *
 * @category destructors
 * @since 0.1.0
 */
export const scale = (options: Options): number => options.alpha / options.rank

const module = (target: Target): string => (['q_proj', 'k_proj', 'v_proj', 'o_proj'].includes(target) ? 'self_attn' : 'mlp')

/**
 * Hugging Face names of the weights that get adapters, with their [out, in] shapes.
 *
 * @category destructors
 * @since 0.1.0
 */
export const adaptedWeights = (
  config: ModelConfig,
  options: Options,
  shapeOf: (name: string) => ReadonlyArray<number> | undefined
): ReadonlyArray<{ readonly stem: string; readonly out: number; readonly in: number }> => {
  const out: Array<{ stem: string; out: number; in: number }> = []
  for (let i = 0; i < config.layers; i++)
    for (const target of options.targets) {
      const stem = `${layerPrefix(i)}.${module(target)}.${target}`
      const shape = shapeOf(`${stem}.weight`)
      if (shape !== undefined) out.push({ stem, out: shape[0] ?? 0, in: shape[1] ?? 0 })
    }
  return out
}

/**
 * New adapter variables (named `${stem}.lora_A.weight`, `${stem}.lora_B.weight`) for the
 * weights of `shapeOf`, A ~ Normal(0, 1/rank), B = 0.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeVariables = (
  scope: string,
  config: ModelConfig,
  options: Options,
  shapeOf: (name: string) => ReadonlyArray<number> | undefined,
  seed: number
): Record<string, tf.Variable> => {
  if (!Number.isInteger(options.rank) || options.rank <= 0) throw new Error(`LoRA rank must be a positive integer, got ${options.rank}`)
  const rng = Rng.make(seed)
  const variables: Record<string, tf.Variable> = {}
  for (const w of adaptedWeights(config, options, shapeOf)) {
    variables[`${w.stem}.lora_A.weight`] = variableOf(scope, `${w.stem}.lora_A.weight`, {
      shape: [options.rank, w.in],
      data: normal(rng, options.rank * w.in, 1 / options.rank)
    })
    variables[`${w.stem}.lora_B.weight`] = variableOf(scope, `${w.stem}.lora_B.weight`, {
      shape: [w.out, options.rank],
      data: new Float32Array(w.out * options.rank)
    })
  }
  return variables
}

/**
 * Whether a variable name is an adapter's.
 *
 * @category destructors
 * @since 0.1.0
 */
export const isAdapter = (name: string): boolean => name.includes('.lora_A.') || name.includes('.lora_B.')
