/**
 * The output head and the log-softmax fused and chunked over rows: `log p(target_n)` for hidden
 * states [N, d] without ever holding the [N, vocab] logits, so memory grows as chunk x vocab
 * rather than tokens x vocab (at Qwen's 151,936 tokens, 4,800 tokens of an RL batch would take
 * 2.9 GB per [N, vocab] float tensor, and the plain path keeps three). The backward pass
 * recomputes each chunk's logits (as Liger's fused linear cross-entropy does): per chunk,
 * `z = c tanh(h W^T / c) / tau` (the soft-cap only with one), `p = softmax(z)`,
 * `dz = dy (onehot(target) - p)`, through the soft-cap `dz (1 - tanh^2)` and `/ tau`, then
 * `dh = dz W`, `dW += dz^T h`.
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

/** `z[n, targets[n]] - logsumexp(z[n])` for one chunk: [R]. */
const pickedLogprobs = (z: tf.Tensor2D, targets: tf.Tensor1D): tf.Tensor1D => {
  const [R, V] = z.shape
  const max = tf.max(z, -1, true)
  const lse = tf.add(tf.reshape(max, [R]), tf.log(tf.sum(tf.exp(tf.sub(z, max)), -1)))
  const flat = tf.add(tf.mul(tf.range(0, R, 1, 'int32'), tf.scalar(V, 'int32')), targets)
  return tf.sub(tf.gather(tf.reshape(z, [-1]), flat), lse)
}

const rowsOf = <T extends tf.Tensor>(x: T, start: number, rows: number): T =>
  (x.rank === 1 ? tf.slice(x, [start], [rows]) : tf.slice(x, [start, 0], [rows, -1])) as T

/**
 * `log softmax(head(hidden))[n, targets[n]]`, chunked (see the module comment). Differentiable
 * in `hidden` and `weight`; the caller owns the result.
 *
 * @param hidden [N, d]
 * @param weight [vocab, d] (Hugging Face layout)
 * @param targets int32 [N]
 * @returns [N]
 */
export const chunkedLogprobs = (hidden: tf.Tensor2D, weight: tf.Tensor2D, targets: tf.Tensor1D, head: Head, rows = chunkRows(weight.shape[0])): tf.Tensor1D => {
  const N = hidden.shape[0]
  const starts = Array.from({ length: Math.ceil(N / rows) }, (_, i) => i * rows)
  const f = tf.customGrad((...args: Array<tf.Tensor | tf.GradSaveFunc>) => {
    const [h, w, save] = args as [tf.Tensor2D, tf.Tensor2D, tf.GradSaveFunc]
    save([h, w, targets])
    const parts = starts.map((s) =>
      tf.tidy(() => pickedLogprobs(chunkLogits(head, rowsOf(h, s, Math.min(rows, N - s)), w).z, rowsOf(targets, s, Math.min(rows, N - s))))
    )
    return {
      value: parts.length === 1 ? parts[0]! : tf.concat(parts),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [sh, sw, st] = saved as [tf.Tensor2D, tf.Tensor2D, tf.Tensor1D]
        const V = sw.shape[0]
        let dW: tf.Tensor = tf.zerosLike(sw)
        const dh = starts.map((s) => {
          const R = Math.min(rows, N - s)
          const [dhPart, dWPart] = tf.tidy(() => {
            const hc = rowsOf(sh, s, R)
            const { z, capTanh } = chunkLogits(head, hc, sw)
            const p = tf.softmax(z)
            let dz: tf.Tensor = tf.mul(tf.sub(tf.cast(tf.oneHot(rowsOf(st, s, R), V), 'float32'), p), tf.reshape(rowsOf(dy as tf.Tensor1D, s, R), [R, 1]))
            if (capTanh !== undefined) dz = tf.mul(dz, tf.sub(1, tf.square(capTanh)))
            if (head.temperature !== 1) dz = tf.div(dz, head.temperature)
            return [tf.matMul(dz as tf.Tensor2D, sw), tf.matMul(tf.transpose(dz) as tf.Tensor2D, hc)]
          })
          const next = tf.add(dW, dWPart)
          dW.dispose()
          dWPart.dispose()
          dW = next
          return dhPart
        })
        return [dh.length === 1 ? dh[0]! : tf.concat(dh), dW]
      }
    }
  }) as unknown as (h: tf.Tensor2D, w: tf.Tensor2D) => tf.Tensor1D
  return f(hidden, weight)
}
