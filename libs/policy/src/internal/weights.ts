/**
 * Named variables: creation from specs (seeded init through core's Rng, identical on every
 * backend) or from host arrays, and the weight accessor that merges LoRA adapters.
 */
import type { Rng } from '@mtrl/core'
import * as tf from '@tensorflow/tfjs'
import { mm } from './ops.js'
import type { Adapter, ParameterSpec, WeightOf } from './transformer.js'

/** Variables by Hugging Face name. */
export type NamedVariables = Readonly<Record<string, tf.Variable>>

/** A tensor held in host memory: float32 data in row-major order. */
export interface HostTensor {
  readonly shape: ReadonlyArray<number>
  readonly data: Float32Array
}

let instances = 0
/** A prefix that keeps tf variable names unique across models (tfjs registers names globally). */
export const freshScope = (kind: string): string => `${kind}${++instances}`

const size = (shape: ReadonlyArray<number>): number => shape.reduce((a, b) => a * b, 1)

/** Normal(0, std) samples by Box-Muller from `rng`. */
export const normal = (rng: Rng.Rng, n: number, std: number): Float32Array => {
  const out = new Float32Array(n)
  for (let i = 0; i < n; i += 2) {
    const u1 = 1 - rng.next()
    const u2 = rng.next()
    const r = Math.sqrt(-2 * Math.log(u1)) * std
    out[i] = r * Math.cos(2 * Math.PI * u2)
    if (i + 1 < n) out[i + 1] = r * Math.sin(2 * Math.PI * u2)
  }
  return out
}

/** The host value a spec starts from. */
export const initial = (spec: ParameterSpec, rng: Rng.Rng, std = 0.02): HostTensor => {
  const n = size(spec.shape)
  switch (spec.init) {
    case 'normal':
      return { shape: spec.shape, data: normal(rng, n, std) }
    case 'ones':
      return { shape: spec.shape, data: new Float32Array(n).fill(1) }
    case 'zeros':
      return { shape: spec.shape, data: new Float32Array(n) }
  }
}

/**
 * A trainable variable named `${scope}/${name}` holding `value`. On tensorflow the backend keeps
 * the host array until the tensor's first use (then copies it into TensorFlow's memory): it is
 * used at once (a one-value slice), so that the host array can be collected now, not after the
 * first forward pass, which would hold the whole model twice.
 */
export const variableOf = (scope: string, name: string, value: HostTensor): tf.Variable => {
  if (value.data.length !== size(value.shape)) throw new Error(`${name}: ${value.data.length} values for shape [${value.shape.join(', ')}]`)
  const v = tf.tidy(() => tf.variable(tf.tensor(value.data, [...value.shape], 'float32'), true, `${scope}/${name}`))
  if (tf.getBackend() === 'tensorflow' && v.size > 0) tf.dispose(tf.tidy(() => tf.slice(tf.reshape(v, [-1]), 0, 1)))
  return v
}

/** The Hugging Face name of a variable made by {@link variableOf}. */
export const nameOf = (variable: tf.Variable): string => variable.name.slice(variable.name.indexOf('/') + 1)

/** Rank-1 LoRA metadata per adapted weight, see Lora.ts. */
export interface LoraScale {
  readonly scale: number
}

/** Weight accessor: the variable itself, or `W + scale * B @ A` when the weight has an adapter. */
export const weightOf = (variables: NamedVariables, lora: LoraScale | undefined): WeightOf => {
  if (lora === undefined) return (name) => required(variables, name)
  const adapter = (name: string): Adapter | undefined => {
    const stem = name.endsWith('.weight') ? name.slice(0, -'.weight'.length) : undefined
    const a = stem === undefined ? undefined : variables[`${stem}.lora_A.weight`]
    const b = stem === undefined ? undefined : variables[`${stem}.lora_B.weight`]
    if (a === undefined || b === undefined) return undefined
    return { base: required(variables, name) as tf.Tensor2D, a: a as tf.Tensor2D, b: b as tf.Tensor2D, scale: lora.scale }
  }
  const merged = (name: string): tf.Tensor => {
    const parts = adapter(name)
    return parts === undefined ? required(variables, name) : tf.add(parts.base, tf.mul(mm(parts.b, parts.a), parts.scale))
  }
  return Object.assign(merged, { adapter })
}

const required = (variables: NamedVariables, name: string): tf.Variable => {
  const v = variables[name]
  if (v === undefined) throw new Error(`no weight named ${name}`)
  return v
}

/** Disposes every variable. */
export const disposeAll = (variables: NamedVariables): void => {
  for (const v of Object.values(variables)) v.dispose()
}
