/**
 * The output head, the log-softmax and the entropy fused and chunked over rows: `log p(target_n)`
 * and `H_n` for hidden states [N, d] without ever holding the [N, vocab] logits, so memory grows as chunk x vocab
 * rather than tokens x vocab (at Qwen's 151,936 tokens, 4,800 tokens of an RL batch would take
 * 2.9 GB per [N, vocab] float tensor, and the plain path keeps three). A trained weight's
 * backward pass recomputes each chunk's logits: per chunk,
 * `z = c tanh(h W^T / c) / tau` (the soft-cap only with one), `p = softmax(z)`,
 * `dz = dlp (onehot(target) - p) - dH p (z - E_p[z])`, through the soft-cap `dz (1 - tanh^2)` and `/ tau`, then
 * `dh = dz W`, `dW += dz^T h`. A frozen weight's (LoRA) gradient is only `dh`, which is linear in
 * `(dlp, dH)`: the forward pass takes it per score, as Liger's fused linear cross-entropy takes
 * its input gradient, and the backward pass only weighs it (see `frozenScores`).
 */
import * as tf from '@tensorflow/tfjs'
import { linear } from './ops.js'

/** Rows per chunk so that a chunk's logits hold about `budget` floats (64 MB) (at least one row). */
export const chunkRows = (vocab: number, budget = 2 ** 24): number => Math.max(1, Math.floor(budget / vocab))

interface Head {
  readonly temperature: number
  readonly softcap: number | undefined
}

/** Logits of rows `h` [R, d] (soft-cap, then temperature, as `transformer.logits` and `Scoring`), and the soft-cap's tanh (for its gradient). */
const chunkLogits = (head: Head, h: tf.Tensor2D, w: tf.Tensor2D): { readonly z: tf.Tensor2D; readonly capTanh: tf.Tensor2D | undefined } => {
  let z = linear(h, w)
  let capTanh: tf.Tensor2D | undefined
  if (head.softcap !== undefined) {
    capTanh = tf.tanh(tf.div(z, head.softcap)) as tf.Tensor2D
    z = tf.mul(capTanh, head.softcap) as tf.Tensor2D
  }
  return { z: head.temperature === 1 ? z : (tf.div(z, head.temperature) as tf.Tensor2D), capTanh }
}

/** For one chunk: [R, 2], `z[n, targets[n]] - logsumexp(z[n])` and the entropy (0 unless asked). */
const scoresOf = (z: tf.Tensor2D, targets: tf.Tensor1D, entropy: boolean): tf.Tensor2D => {
  const [R, V] = z.shape
  const max = tf.max(z, -1, true)
  const e = tf.exp(tf.sub(z, max))
  const sum = tf.sum(e, -1, true)
  const lse = tf.reshape(tf.add(max, tf.log(sum)), [R])
  const flat = tf.add(tf.mul(tf.range(0, R, 1, 'int32'), tf.scalar(V, 'int32')), targets)
  const logprobs = tf.sub(tf.gather(tf.reshape(z, [-1]), flat), lse)
  // H = lse - sum_v p_v z_v
  const h = entropy ? tf.sub(lse, tf.sum(tf.mul(tf.div(e, sum), z), -1)) : tf.zerosLike(logprobs)
  return tf.stack([logprobs, h], 1) as tf.Tensor2D
}

/** The gradient of one chunk's scores in its logits: `dlp (onehot - p) - dH p (z - E_p[z])`. */
const logitsGrad = (z: tf.Tensor2D, targets: tf.Tensor1D, dy: tf.Tensor2D, entropy: boolean): tf.Tensor2D => {
  const [R, V] = z.shape
  const p = tf.softmax(z)
  const dlp = tf.slice(dy, [0, 0], [R, 1])
  let dz: tf.Tensor = tf.mul(tf.sub(tf.cast(tf.oneHot(targets, V), 'float32'), p), dlp)
  if (entropy) {
    const mean = tf.sum(tf.mul(p, z), -1, true)
    dz = tf.sub(dz, tf.mul(tf.mul(p, tf.sub(z, mean)), tf.slice(dy, [0, 1], [R, 1])))
  }
  return dz as tf.Tensor2D
}

const rowsOf = <T extends tf.Tensor>(x: T, start: number, rows: number): T =>
  (x.rank === 1 ? tf.slice(x, [start], [rows]) : tf.slice(x, [start, 0], [rows, -1])) as T

/**
 * Rows `start..start+R` of the scores and their rows of the Jacobian in the hidden states, `[R, d]`
 * per score (side by side with `entropy`: `[R, 2d]`), so that `dh = dlp J_lp + dH J_H`: the
 * gradient in the logits is linear in `dy` ({@link logitsGrad}), so it can be taken before `dy`
 * is known. `J_lp = (onehot - p) W`, `J_H = -(p (z - E_p[z])) W`, through the soft-cap and the
 * temperature as in {@link chunkedScores}' backward pass.
 */
const chunkWithJacobian = (
  head: Head,
  hidden: tf.Tensor2D,
  w: tf.Tensor2D,
  targets: tf.Tensor1D,
  scores: { readonly entropy: boolean; readonly withEntropy: boolean },
  start: number,
  R: number
): readonly [tf.Tensor2D, tf.Tensor2D] =>
  tf.tidy(() => {
    const t = rowsOf(targets, start, R)
    const { z, capTanh } = chunkLogits(head, rowsOf(hidden, start, R), w)
    const values = scoresOf(z, t, scores.entropy)
    const both = scores.withEntropy
    const p = tf.softmax(z)
    const byScore: tf.Tensor[] = [tf.sub(tf.cast(tf.oneHot(t, z.shape[1]), 'float32'), p)]
    if (both) byScore.push(tf.neg(tf.mul(p, tf.sub(z, tf.sum(tf.mul(p, z), -1, true)))))
    let dz = byScore.length === 1 ? byScore[0]! : tf.concat(byScore)
    if (capTanh !== undefined) {
      const cap = tf.sub(1, tf.square(capTanh))
      dz = tf.mul(dz, both ? tf.concat([cap, cap]) : cap)
    }
    if (head.temperature !== 1) dz = tf.div(dz, head.temperature)
    const stacked = tf.matMul(dz as tf.Tensor2D, w)
    const jacobian = both ? tf.concat([tf.slice(stacked, [0, 0], [R, -1]), tf.slice(stacked, [R, 0], [R, -1])], 1) : stacked
    return [values, jacobian as tf.Tensor2D] as const
  })

/**
 * {@link chunkedScores} with a frozen weight (LoRA). The weight is no input of the op: it is
 * neither copied for the backward pass nor given a [vocab, d] gradient. Under a gradient tape the
 * forward pass also takes each chunk's Jacobian rows ({@link chunkWithJacobian}) and keeps them
 * ([N, d] or [N, 2d]), so the backward pass is one product per score instead of the chunk's
 * logits and softmax again and a [R, vocab] x [vocab, d] product: two passes over the head
 * instead of three. Without a tape it is the plain forward pass.
 */
const frozenScores = (
  hidden: tf.Tensor2D,
  weight: tf.Tensor2D,
  targets: tf.Tensor1D,
  head: Head,
  wanted: { readonly entropy: boolean; readonly entropyGradient: boolean },
  starts: ReadonlyArray<number>,
  rows: number,
  forward: (h: tf.Tensor2D, w: tf.Tensor2D) => tf.Tensor2D
): tf.Tensor2D => {
  if (!tf.engine().isTapeOn()) return forward(hidden, weight)
  const { entropy } = wanted
  // the entropy's Jacobian rows only where its gradient is wanted
  const withEntropy = entropy && wanted.entropyGradient
  const N = hidden.shape[0]
  const d = weight.shape[1]
  const f = tf.customGrad((...args: Array<tf.Tensor | tf.GradSaveFunc>) => {
    const [h, save] = args as [tf.Tensor2D, tf.GradSaveFunc]
    const parts = starts.map((s) => chunkWithJacobian(head, h, weight, targets, { entropy, withEntropy }, s, Math.min(rows, N - s)))
    const joined = (k: 0 | 1): tf.Tensor2D => (parts.length === 1 ? parts[0]![k] : tf.concat(parts.map((p) => p[k])))
    const scores = joined(0)
    const jacobian = joined(1)
    save([jacobian])
    if (parts.length > 1) tf.dispose(parts.flat())
    return {
      value: scores,
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) =>
        tf.tidy(() => {
          const J = saved[0]!
          const lp = tf.mul(tf.slice(dy, [0, 0], [-1, 1]), withEntropy ? tf.slice(J, [0, 0], [-1, d]) : J)
          return withEntropy ? tf.add(lp, tf.mul(tf.slice(dy, [0, 1], [-1, 1]), tf.slice(J, [0, d], [-1, d]))) : lp
        })
    }
  }) as unknown as (h: tf.Tensor2D) => tf.Tensor2D
  return f(hidden)
}

/**
 * `log softmax(head(hidden))[n, targets[n]]` and, with `entropy`, each row's entropy, chunked
 * (see the module comment). Differentiable in `hidden` and `weight`; the caller owns the result.
 *
 * @param hidden [N, d]
 * @param weight [vocab, d] (Hugging Face layout)
 * @param targets int32 [N]
 * @param frozenWeight the weight does not train (LoRA): its gradient is not made
 * @param entropyGradient with a frozen weight, whether the entropy's gradient is taken: false
 *   leaves it out (the caller detaches the entropies)
 * @returns [N, 2]: log-prob, entropy (0 without `entropy`)
 */
export const chunkedScores = (
  hidden: tf.Tensor2D,
  weight: tf.Tensor2D,
  targets: tf.Tensor1D,
  head: Head,
  entropy: boolean,
  rows = chunkRows(weight.shape[0]),
  frozenWeight = false,
  entropyGradient = true
): tf.Tensor2D => {
  const N = hidden.shape[0]
  const starts = Array.from({ length: Math.ceil(N / rows) }, (_, i) => i * rows)
  /** Each chunk's [dh, dW]. */
  const chunkGrads = (sh: tf.Tensor2D, sw: tf.Tensor2D, st: tf.Tensor1D, dy: tf.Tensor2D, s: number): tf.Tensor2D[] =>
    tf.tidy(() => {
      const R = Math.min(rows, N - s)
      const hc = rowsOf(sh, s, R)
      const { z, capTanh } = chunkLogits(head, hc, sw)
      let dz: tf.Tensor = logitsGrad(z, rowsOf(st, s, R), rowsOf(dy, s, R), entropy)
      if (capTanh !== undefined) dz = tf.mul(dz, tf.sub(1, tf.square(capTanh)))
      if (head.temperature !== 1) dz = tf.div(dz, head.temperature)
      const dh = tf.matMul(dz as tf.Tensor2D, sw)
      return [dh, tf.matMul(tf.transpose(dz) as tf.Tensor2D, hc)]
    }) as tf.Tensor2D[]
  const forward = (h: tf.Tensor2D, w: tf.Tensor2D): tf.Tensor2D => {
    const parts = starts.map((s) => {
      const R = Math.min(rows, N - s)
      return tf.tidy(() => scoresOf(chunkLogits(head, rowsOf(h, s, R), w).z, rowsOf(targets, s, R), entropy))
    })
    return parts.length === 1 ? parts[0]! : tf.concat(parts)
  }
  const backward = (dy: tf.Tensor2D, sh: tf.Tensor2D, sw: tf.Tensor2D, st: tf.Tensor1D): tf.Tensor[] => {
    let dW: tf.Tensor = tf.zerosLike(sw)
    const dh = starts.map((s) => {
      const [dhPart, dWPart] = chunkGrads(sh, sw, st, dy, s)
      const next = tf.add(dW, dWPart!)
      tf.dispose([dW, dWPart!])
      dW = next
      return dhPart!
    })
    return [dh.length === 1 ? dh[0]! : tf.concat(dh), dW]
  }
  if (frozenWeight) return frozenScores(hidden, weight, targets, head, { entropy, entropyGradient }, starts, rows, forward)
  const f = tf.customGrad((...args: Array<tf.Tensor | tf.GradSaveFunc>) => {
    const [h, w, save] = args as [tf.Tensor2D, tf.Tensor2D, tf.GradSaveFunc]
    save([h, w, targets])
    return {
      value: forward(h, w),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => backward(dy as tf.Tensor2D, saved[0] as tf.Tensor2D, saved[1] as tf.Tensor2D, saved[2] as tf.Tensor1D)
    }
  }) as unknown as (h: tf.Tensor2D, w: tf.Tensor2D) => tf.Tensor2D
  return f(hidden, weight)
}

/** {@link chunkedScores}' log-probs alone: [N]. */
export const chunkedLogprobs = (hidden: tf.Tensor2D, weight: tf.Tensor2D, targets: tf.Tensor1D, head: Head, rows = chunkRows(weight.shape[0])): tf.Tensor1D =>
  tf.reshape(tf.slice(chunkedScores(hidden, weight, targets, head, false, rows), [0, 0], [-1, 1]), [-1]) as tf.Tensor1D
