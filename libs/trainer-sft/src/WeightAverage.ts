/**
 * An exponential moving average of the trainable weights (Polyak averaging), kept beside the
 * training weights and applied at the end of SFT (`emaDecay`). The decay at step n is
 * `min(emaDecay, (1 + n) / (10 + n))`, TensorFlow's `num_updates` warm-up, so the average
 * forgets the initial weights.
 *
 * A stateful resource: {@link make}, {@link update}, {@link apply}, `dispose`.
 *
 * @since 0.1.0
 */
import * as tf from '@tensorflow/tfjs'

/**
 * The weight average's decay after `n` steps: `min(emaDecay, (1 + n) / (10 + n))`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const emaDecayAt = (emaDecay: number, n: number): number => Math.min(emaDecay, (1 + n) / (10 + n))

/**
 * The average of `variables`: a copy of them, or of `from` (host arrays in variable order).
 *
 * @category models
 * @since 0.1.0
 */
export interface WeightAverage {
  readonly weights: ReadonlyArray<tf.Variable>
  readonly dispose: () => void
}

/** @category constructors @since 0.1.0 */
export const make = (variables: ReadonlyArray<tf.Variable>, from?: ReadonlyArray<Float32Array>): WeightAverage => {
  const weights = variables.map((v, i) => {
    const saved = from?.[i]
    const copy = saved === undefined ? tf.clone(v) : tf.tensor(saved, v.shape)
    const a = tf.variable(copy, false)
    copy.dispose()
    return a
  })
  return { weights, dispose: () => weights.forEach((a) => a.dispose()) }
}

/**
 * `average <- decay * average + (1 - decay) * variables`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const update = (average: WeightAverage, variables: ReadonlyArray<tf.Variable>, decay: number): void =>
  tf.tidy(() => average.weights.forEach((a, i) => a.assign(tf.add(tf.mul(a, decay), tf.mul(variables[i]!, 1 - decay)))))

/**
 * Copies the average into `variables`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const apply = (average: WeightAverage, variables: ReadonlyArray<tf.Variable>): void => variables.forEach((v, i) => v.assign(average.weights[i]!))

/**
 * The average as host arrays, in variable order (for snapshots).
 *
 * @category destructors
 * @since 0.1.0
 */
export const toHost = (average: WeightAverage): Float32Array[] => average.weights.map((a) => new Float32Array(a.dataSync()))
