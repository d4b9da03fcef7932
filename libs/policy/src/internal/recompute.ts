/**
 * Gradient checkpointing: each layer of the trunk runs as one custom op that keeps only its
 * input (and its trainable weights, which it reads) for the backward pass, and recomputes the
 * layer's forward pass there to take the gradients. The activations kept between the forward
 * and the backward pass shrink from every intermediate of every layer to one [B*T, d] input per
 * layer; the price is one more forward pass of the trunk.
 *
 * The recomputation takes its gradients with `tf.grads` inside the outer backward pass. The
 * engine keeps one tape (`state.activeTape`) and a nested `gradients` call replaces and then
 * clears it, so the outer tape is put back afterwards (tfjs 4.x's engine; the gradient test in
 * `test/Scoring.test.ts` fails if that ever changes).
 */
import * as tf from '@tensorflow/tfjs'
import type { ModelConfig } from '../ModelConfig.js'
import { layerPrefix } from './layout.js'
import { block, type Block } from './transformer.js'
import { weightOf, type LoraScale, type NamedVariables } from './weights.js'

interface EngineState {
  activeTape: unknown
}

/** `tf.grads` of `f` at `xs` against `dy`, run inside another gradient computation's backward pass. */
const nestedGrads = (f: (...xs: tf.Tensor[]) => tf.Tensor, xs: tf.Tensor[], dy: tf.Tensor): tf.Tensor[] => {
  const state = (tf.engine() as unknown as { readonly state: EngineState }).state
  const outer = state.activeTape
  try {
    return tf.grads(f)(xs, dy)
  } finally {
    state.activeTape = outer
  }
}

/**
 * A {@link Block} that recomputes each layer in the backward pass. `trainable` names the
 * variables that get gradients (the others, e.g. LoRA's frozen base, are constants of the
 * layer); `lora` is the policy's LoRA scale (undefined without adapters).
 */
export const recomputing =
  (config: ModelConfig, variables: NamedVariables, lora: LoraScale | undefined, trainable: ReadonlySet<string>): Block =>
  (i, x, B, T) => {
    const prefix = `${layerPrefix(i)}.`
    const own = Object.keys(variables).filter((name) => name.startsWith(prefix) && trainable.has(name))
    // the layer's weights with its trainable ones replaced by the op's inputs
    const weightsWith = (inputs: ReadonlyArray<tf.Tensor>): ReturnType<typeof weightOf> =>
      weightOf({ ...variables, ...Object.fromEntries(own.map((name, k) => [name, inputs[k] as tf.Variable])) }, lora)
    const run = (...xs: tf.Tensor[]): tf.Tensor => block(config, weightsWith(xs.slice(1)), i, xs[0] as tf.Tensor2D, B, T)
    const layer = tf.customGrad((...args: Array<tf.Tensor | tf.GradSaveFunc>) => {
      const save = args[args.length - 1] as tf.GradSaveFunc
      const inputs = args.slice(0, -1) as tf.Tensor[]
      save(inputs)
      return { value: run(...inputs), gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => nestedGrads(run, saved, dy) }
    }) as unknown as (...xs: tf.Tensor[]) => tf.Tensor2D
    return layer(x, ...own.map((name) => variables[name]!))
  }
