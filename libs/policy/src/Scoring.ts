/**
 * Differentiable log-probabilities and entropies of given token sequences, in one forward
 * pass: what PPO/GRPO ratios, KL penalties and SFT losses are built from. Call inside
 * `optimizer.minimize` / `tf.variableGrads`.
 *
 * `logprobs[b, t] = log softmax(logits[b, t-1] / temperature)[ids[b, t]]`, 0 at t = 0;
 * `entropy[b, t] = -sum_v p_v log p_v` of that same distribution, 0 at t = 0. Pass the sampling
 * temperature to reproduce the sampler's log-probs (without top-k / top-p truncation).
 *
 * @since 0.1.0
 */
import * as tf from '@tensorflow/tfjs'
import { chunkedScores, chunkRows } from './internal/chunkedHead.js'
import { flatRows, maskedScores, merge, type Allowed } from './internal/allowed.js'
import { detach, pick, pickLogSoftmax } from './internal/ops.js'
import { recomputing } from './internal/recompute.js'
import * as transformer from './internal/transformer.js'
import { nameOf } from './internal/weights.js'
import { valueHead, type Critic } from './Critic.js'
import * as Lora from './Lora.js'
import { trainableVariables, weightOf, type Policy } from './Policy.js'

/**
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** Compute entropies (default true); when false `entropy` is all zeros and costs nothing. */
  readonly entropy?: boolean
  /**
   * Whether the entropies carry a gradient (default true). False: they are a metric only (an RL
   * update without an entropy bonus), so no gradient flows from them and a frozen (LoRA) head
   * past one chunk skips the entropy's share of its forward-pass gradient (a third of the
   * head's work).
   */
  readonly entropyGradient?: boolean
  /**
   * {@link tokenLogprobsWithValues} only: where a value loss's gradient goes: `head` (default,
   * through a stop-gradient on the trunk) or `trunk` (the head and the shared trunk, as a
   * policy-and-value network trained on one summed loss).
   */
  readonly valueGradient?: 'head' | 'trunk'
  /**
   * Rows of a chunk of the fused head (default: as many as make 16M logits). Past one chunk,
   * the head, the log-softmax and the entropy run chunked: a trained head recomputes each
   * chunk's logits in the backward pass, a frozen (LoRA) head takes its input gradient in the
   * forward pass. Memory grows as chunk x vocab instead of tokens x vocab.
   */
  readonly chunkRows?: number
  /**
   * Constrained decoding: per row of the batch, the positions whose token was drawn under a
   * grammar's mask, with that mask (see {@link Allowed}). There the log-prob and entropy are
   * those of the masked distribution (logits outside the allowed set at -inf before the
   * log-softmax), as the sampler drew them; elsewhere nothing changes. Rows past the list's end
   * have none.
   */
  readonly allowed?: ReadonlyArray<ReadonlyArray<Allowed>>
  /**
   * Gradient checkpointing (default false): each layer keeps only its input for the backward
   * pass and is recomputed there, so the activations held between the passes are one
   * [tokens, dModel] input per layer instead of every intermediate, for one more forward pass
   * of the trunk. The gradients are those of the plain pass.
   */
  readonly recompute?: boolean
}

/**
 * One constrained position of a row: `ids[position]` (position >= 1) was drawn under `mask`
 * (bit `id % 32` of word `id >> 5` set: allowed), as `Capture.Call.masks` records it.
 *
 * @category models
 * @since 0.5.0
 */
export type { Allowed } from './internal/allowed.js'

/**
 * Per-token log-probs and entropies.
 *
 * @category models
 * @since 0.1.0
 */
export interface TokenScores {
  /** [B, T]: log p(ids[t] | ids[<t]); 0 at t = 0. */
  readonly logprobs: tf.Tensor2D
  /** [B, T]: entropy of the distribution that predicted ids[t]; 0 at t = 0. */
  readonly entropy: tf.Tensor2D
}

/**
 * Scores a right-padded batch. Right padding needs no attention mask (causal attention never
 * looks ahead); select loss positions with a mask. The caller owns both tensors; `ids` is not
 * disposed.
 *
 * @example
 * import * as tf from '@tensorflow/tfjs'
 * import { ModelConfig, Policy, Scoring } from '@mtrl/policy'
 * const policy = Policy.make(ModelConfig.make({ vocab: 64, dModel: 32, layers: 1, heads: 2 }), 0)
 * const ids = tf.tensor2d([[1, 5, 7, 0]], [1, 4], 'int32')
 * const { logprobs, entropy } = Scoring.tokenLogprobs(policy)(ids)
 *
 * @param ids int32 [B, T], right-padded
 * @param temperature > 0, default 1
 * @category destructors
 * @since 0.1.0
 */
export const tokenLogprobs =
  (policy: Policy, options: Options = {}) =>
  (ids: tf.Tensor2D, temperature = 1): TokenScores => {
    checkTemperature(temperature)
    const [B, T] = ids.shape
    // fewer than 2 tokens predict nothing: no forward pass
    if (T < 2) return { logprobs: tf.zeros([B, T]), entropy: tf.zeros([B, T]) }
    return tf.tidy(
      () => scoresOf(policy, hiddenOf(policy, ids, options.recompute), ids, temperature, options) as unknown as tf.TensorContainer
    ) as unknown as TokenScores
  }

/**
 * Per-token log-probs, entropies and values of a critic that shares the policy's trunk.
 *
 * @category models
 * @since 0.2.0
 */
export interface TokenScoresWithValues extends TokenScores {
  /** [B, T]: `V(h_t)`, the critic's value after reading `ids[<=t]` (as `Critic.values`). */
  readonly values: tf.Tensor2D
}

/**
 * {@link tokenLogprobs} and the values of a critic that shares the policy's trunk
 * (`critic.shareTrunk`), from **one** forward pass of the trunk instead of two: the PPO update
 * of a shared-trunk critic costs about half of a separate critic's. By default the values read
 * the trunk's hidden states through a stop-gradient, so a value loss moves only the value head,
 * as a shared critic's own optimizer (over its head) does with `Critic.values`;
 * `valueGradient: 'trunk'` lets it reach the trunk too. The caller owns the three tensors.
 *
 * @example
 * import * as tf from '@tensorflow/tfjs'
 * import { Critic, ModelConfig, Policy, Scoring } from '@mtrl/policy'
 * const policy = Policy.make(ModelConfig.make({ vocab: 64, dModel: 32, layers: 1, heads: 2 }), 0)
 * const critic = Critic.make(policy, { shareTrunk: true }, 1)
 * const ids = tf.tensor2d([[1, 5, 7, 0]], [1, 4], 'int32')
 * const { logprobs, values } = Scoring.tokenLogprobsWithValues(policy, critic)(ids)
 *
 * @param ids int32 [B, T], right-padded
 * @param temperature > 0, default 1
 * @category destructors
 * @since 0.2.0
 */
export const tokenLogprobsWithValues =
  (policy: Policy, critic: Critic, options: Options = {}) =>
  (ids: tf.Tensor2D, temperature = 1): TokenScoresWithValues => {
    checkTemperature(temperature)
    if (!critic.shareTrunk || critic.policy !== policy)
      throw new Error("Scoring.tokenLogprobsWithValues: the critic must share this policy's trunk (Critic.make(policy, { shareTrunk: true }))")
    return tf.tidy(() => {
      const hidden = hiddenOf(policy, ids, options.recompute)
      return {
        ...scoresOf(policy, hidden, ids, temperature, options),
        values: valueHead(critic, options.valueGradient === 'trunk' ? hidden : detach(hidden))
      } as unknown as tf.TensorContainer
    }) as unknown as TokenScoresWithValues
  }

const checkTemperature = (temperature: number): void => {
  if (!(temperature > 0)) throw new Error(`Scoring.tokenLogprobs: temperature must be > 0, got ${temperature}`)
}

/** [B, T, dModel]: the trunk's last hidden states (each layer recomputed in the backward pass with `recompute`). */
const hiddenOf = (policy: Policy, ids: tf.Tensor2D, recompute = false): tf.Tensor3D => {
  const [B, T] = ids.shape
  const run = recompute
    ? recomputing(
        policy.config,
        policy.variables,
        policy.lora === undefined ? undefined : { scale: Lora.scale(policy.lora) },
        new Set(trainableVariables(policy).map(nameOf))
      )
    : undefined
  return tf.reshape(transformer.trunk(policy.config, weightOf(policy), ids, run), [B, T, policy.config.dModel])
}

const scoresOf = (policy: Policy, hidden: tf.Tensor3D, ids: tf.Tensor2D, temperature: number, options: Options): TokenScores => {
  const [B, T] = ids.shape
  if (T < 2) return { logprobs: tf.zeros([B, T]) as tf.Tensor2D, entropy: tf.zeros([B, T]) as tf.Tensor2D }
  // positions 0..T-2 predict ids 1..T-1
  const h = tf.reshape(tf.slice(hidden, [0, 0, 0], [B, T - 1, policy.config.dModel]), [B * (T - 1), policy.config.dModel]) as tf.Tensor2D
  const targets = tf.reshape(tf.slice(ids, [0, 1], [B, T - 1]), [-1]) as tf.Tensor1D
  const pad = tf.zeros([B, 1])
  const rows = (x: tf.Tensor): tf.Tensor2D => tf.concat([pad, tf.reshape(x, [B, T - 1])], 1) as tf.Tensor2D
  const V = policy.config.vocab
  const constrained = options.allowed === undefined ? undefined : flatRows(options.allowed, B, T)
  // the masked distributions at the constrained rows, merged over the plain ones
  const masked = (logprobs: tf.Tensor, entropy: tf.Tensor | undefined): TokenScores => {
    if (constrained === undefined || constrained.rows.length === 0)
      return { logprobs: rows(logprobs), entropy: entropy === undefined ? (tf.zeros([B, T]) as tf.Tensor2D) : rows(entropy) }
    const logits = (x: tf.Tensor2D): tf.Tensor2D => transformer.logits(policy.config, weightOf(policy), x)
    const m = maskedScores(h, targets, constrained.rows, constrained.masks, logits, temperature, V)
    return {
      logprobs: rows(merge(logprobs, m.logprobs, constrained.rows)),
      entropy: entropy === undefined ? (tf.zeros([B, T]) as tf.Tensor2D) : rows(merge(entropy, m.entropy, constrained.rows))
    }
  }
  // past one chunk of logits, the head, log-softmax and entropy run fused and chunked (memory: chunk x vocab)
  const chunk = options.chunkRows ?? chunkRows(V)
  if (B * (T - 1) > chunk) {
    const head = { temperature, softcap: policy.config.logitSoftcap }
    const entropy = options.entropy !== false
    // with LoRA the head (embeddings or lm_head) is frozen: no [vocab, d] gradient, no copy of it kept
    const differentiable = options.entropyGradient !== false
    const scores = chunkedScores(
      h,
      transformer.headWeight(policy.config, weightOf(policy)),
      targets,
      head,
      entropy,
      chunk,
      policy.lora !== undefined,
      differentiable
    )
    const column = (j: number): tf.Tensor => tf.slice(scores, [0, j], [-1, 1])
    return masked(column(0), entropy ? (differentiable ? column(1) : detach(column(1))) : undefined)
  }
  let z: tf.Tensor2D = transformer.logits(policy.config, weightOf(policy), h)
  if (temperature !== 1) z = tf.div(z, temperature)
  if (options.entropy === false) return masked(pickLogSoftmax(z, targets), undefined)
  const logp = tf.logSoftmax(z)
  const entropy = tf.neg(tf.sum(tf.mul(tf.exp(logp), logp), -1))
  return masked(pick(logp, targets), options.entropyGradient === false ? detach(entropy) : entropy)
}
