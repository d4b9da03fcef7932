/**
 * What training and sampling compute, as plain numbers a backend can be checked with against the
 * cpu backend's reference kernels on the same weights: logits, log-probs and entropy; the
 * gradients of the clipped policy loss (PPO/GRPO) with GRPO advantages and one Adam step;
 * KV-cached greedy decoding against the full forward pass. `run` computes one check on the
 * active backend and frees every tensor it makes; `compare` measures another backend's outputs
 * against the reference's, each measure with its tolerance. The Node parity suite (WebGPU in
 * Dawn) and the page's check (WebGPU in the browser) run these same checks.
 *
 * Tolerances: forward values 1e-4 and gradients 1e-3 of the reference's largest magnitude;
 * weights after an Adam step 5% of the learning rate (Adam moves a weight by about the learning
 * rate whatever its gradient's size, so float32 rounding in a near-zero gradient moves it by a
 * visible fraction of a step; a wrong kernel moves weights by whole steps).
 *
 * @since 0.7.0
 */
import { Grpo } from '@mtrl/advantages'
import { Rng } from '@mtrl/core'
import { Optimizer } from '@mtrl/optim'
import { ModelConfig, Policy, Sampler, Scoring } from '@mtrl/policy'
import * as tf from '@tensorflow/tfjs'
import * as Ppo from './Ppo.js'

/**
 * One measured difference: `error` within `tolerance` passes.
 *
 * @category model
 * @since 0.7.0
 */
export interface Measure {
  readonly check: Name
  readonly name: string
  readonly error: number
  readonly tolerance: number
  readonly passed: boolean
}

/**
 * The checks, in the order they run.
 *
 * @category model
 * @since 0.7.0
 */
export type Name = 'forward' | 'update' | 'decoding'

/** @category constants @since 0.7.0 */
export const names: ReadonlyArray<Name> = ['forward', 'update', 'decoding']

/**
 * A check's outputs on one backend (plain arrays: comparable across backends and threads).
 *
 * @category model
 * @since 0.7.0
 */
export type Outputs = Readonly<Record<string, ReadonlyArray<number> | ReadonlyArray<ReadonlyArray<number>>>>

/** The model of every check: 2 layers, grouped-query attention (4 heads over 2), a 48-wide MLP. */
const config = ModelConfig.make({ vocab: 16, dModel: 32, layers: 2, heads: 4, kvHeads: 2, ffn: 48, maxLen: 32 })
const learningRate = 1e-2

const list = (t: tf.Tensor): number[] => Array.from(t.dataSync())
const ids = (): tf.Tensor2D =>
  tf.tensor2d(
    [
      [1, 5, 3, 2, 7, 3, 4, 6],
      [4, 4, 2, 1, 6, 2, 5, 7]
    ],
    [2, 8],
    'int32'
  )
const actionMask = [0, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1]

const forward = (): Outputs => {
  const policy = Policy.make(config, 4)
  const out = tf.tidy(() => {
    const x = ids()
    const { logprobs, entropy } = Scoring.tokenLogprobs(policy)(x, 0.9)
    return { logits: list(Policy.logits(policy)(x)), logprobs: list(logprobs), entropy: list(entropy) }
  })
  policy.dispose()
  return out
}

const update = (): Outputs => {
  const policy = Policy.make(config, 5)
  const vars = Policy.trainableVariables(policy)
  const x = ids()
  const mask = tf.tensor2d(actionMask, [2, 8])
  // GRPO: one group of two rollouts, the first wins (on its last action token), the second does not
  const tokenRewards = new Float32Array(16)
  tokenRewards[5] = 1
  const grpo = Grpo.estimate(Grpo.defaultOptions)({ batch: 2, time: 8, tokenRewards, actionMask: Float32Array.from(actionMask), groupIds: ['g', 'g'] })
  const advantages = tf.tensor2d(grpo.advantages, [2, 8])
  // old log-probs off the current ones, so that some ratios are clipped
  const old = tf.tidy(() => tf.add(Scoring.tokenLogprobs(policy, { entropy: false })(x).logprobs, tf.mul(tf.sin(tf.range(0, 16).reshape([2, 8])), 0.3)))
  const lossOf = (): tf.Scalar =>
    Ppo.loss(Ppo.defaultOptions)({ logprobs: Scoring.tokenLogprobs(policy, { entropy: false })(x).logprobs, oldLogprobs: old, advantages, mask })
      .loss as tf.Scalar
  const { value, grads } = tf.variableGrads(lossOf, vars)
  const gradients = vars.map((v) => list(grads[v.name]!))
  const loss = value.dataSync()[0]!
  tf.dispose([value, ...Object.values(grads)])
  const adam = Optimizer.make(vars)
  const step = Optimizer.step(adam, { learningRate, maxNorm: 1 }, () => ({ loss: lossOf() }))
  const out = { loss: [loss], gradients, gradNorm: [step.gradNorm], weights: vars.map(list), moments: Optimizer.state(adam).m.map((m) => Array.from(m)) }
  adam.dispose()
  tf.dispose([x, mask, advantages, old])
  policy.dispose()
  return out
}

const decoding = (): Outputs => {
  const policy = Policy.make(config, 6)
  const prompts = [[1, 2, 3], [7]]
  const session = Sampler.make(policy, { slots: 2, maxLen: 32 })
  session.append(
    [0, 1],
    prompts.map((p) => Int32Array.from(p))
  )
  const gens = session.generate([0, 1], { maxNewTokens: 4, temperature: 0, stopTokens: [], rng: Rng.make(0) })
  session.dispose()
  // the full forward pass over prompt + generation scores the generated tokens
  const full = gens.map((g, r) => {
    const seq = [...prompts[r]!, ...Array.from(g.tokens)]
    return tf.tidy(() =>
      list(Scoring.tokenLogprobs(policy, { entropy: false })(tf.tensor2d([seq], [1, seq.length], 'int32')).logprobs).slice(prompts[r]!.length)
    )
  })
  policy.dispose()
  return { tokens: gens.map((g) => Array.from(g.tokens)), logprobs: gens.map((g) => Array.from(g.logprobs)), full }
}

const computations: Readonly<Record<Name, () => Outputs>> = { forward, update, decoding }

/**
 * Computes check `name` on the active backend (synchronous reads: the backend must have
 * `dataSync`). Frees every tensor it makes.
 *
 * @category checks
 * @since 0.7.0
 */
export const run = (name: Name): Outputs => computations[name]()

const flat = (v: Outputs[string] | undefined): ReadonlyArray<number> => (v ?? []).flat()

/** The largest difference relative to the reference's largest magnitude (at least `floor`); Infinity on a length mismatch. */
const relativeError = (reference: ReadonlyArray<number>, other: ReadonlyArray<number>, floor = 1e-3): number => {
  if (reference.length !== other.length) return Infinity
  let scale = floor
  let worst = 0
  for (let i = 0; i < reference.length; i++) {
    scale = Math.max(scale, Math.abs(reference[i]!))
    worst = Math.max(worst, Math.abs(reference[i]! - other[i]!))
  }
  return Number.isNaN(worst) ? Infinity : worst / scale
}

/** The worst relative error over the rows of a list of arrays (gradients, weights per variable). */
const perRow = (reference: Outputs[string] | undefined, other: Outputs[string] | undefined, floor?: number): number => {
  const a = (reference ?? []) as ReadonlyArray<ReadonlyArray<number>>
  const b = (other ?? []) as ReadonlyArray<ReadonlyArray<number>>
  return a.length !== b.length ? Infinity : Math.max(0, ...a.map((row, i) => relativeError(row, b[i]!, floor)))
}

/** The largest difference between weights after a step, as a fraction of the learning rate. */
const stepError = (reference: Outputs[string] | undefined, other: Outputs[string] | undefined): number => {
  const a = flat(reference)
  const b = flat(other)
  if (a.length !== b.length) return Infinity
  let worst = 0
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!))
  return Number.isNaN(worst) ? Infinity : worst / learningRate
}

const measures = (name: Name, r: Outputs, o: Outputs): ReadonlyArray<readonly [string, number, number]> => {
  switch (name) {
    case 'forward':
      return [
        ['logits', relativeError(flat(r['logits']), flat(o['logits'])), 1e-4],
        ['log-probs', relativeError(flat(r['logprobs']), flat(o['logprobs'])), 1e-4],
        ['entropy', relativeError(flat(r['entropy']), flat(o['entropy'])), 1e-4]
      ]
    case 'update':
      return [
        ['loss', relativeError(flat(r['loss']), flat(o['loss']), 1), 1e-4],
        ['gradients', perRow(r['gradients'], o['gradients']), 1e-3],
        ['gradient norm', relativeError(flat(r['gradNorm']), flat(o['gradNorm']), 1), 1e-4],
        ['weights after an Adam step (fraction of the learning rate)', stepError(r['weights'], o['weights']), 0.05],
        ['first moments', perRow(r['moments'], o['moments']), 1e-3]
      ]
    case 'decoding': {
      const tokens = flat(r['tokens'])
      const other = flat(o['tokens'])
      const mismatches = tokens.length !== other.length ? Infinity : tokens.filter((t, i) => t !== other[i]).length
      return [
        ['greedy tokens differing from the reference', mismatches, 0],
        ['cached log-probs', perRow(r['logprobs'], o['logprobs'], 1), 1e-4],
        ['cached log-probs against the full forward pass', perRow(o['full'], o['logprobs'], 1), 1e-4]
      ]
    }
  }
}

/**
 * Measures `other` (check `name`'s outputs on the backend under test) against `reference` (the
 * same check's outputs on cpu).
 *
 * @category checks
 * @since 0.7.0
 */
export const compare =
  (name: Name, reference: Outputs) =>
  (other: Outputs): ReadonlyArray<Measure> =>
    measures(name, reference, other).map(([measure, error, tolerance]) => ({ check: name, name: measure, error, tolerance, passed: error <= tolerance }))
