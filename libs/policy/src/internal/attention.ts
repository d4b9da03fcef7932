/**
 * Causal softmax attention over (batch, head) pairs with hand-written gradients, in two
 * layouts: batched products over all pairs ({@link causalAttention}, for backends with fast
 * batched products) and one 2-D product per pair ({@link causalAttentionByPair}, for wasm).
 */
import * as tf from '@tensorflow/tfjs'
import { mm, swapLast } from './ops.js'

const maskCache = new Map<number, Float32Array>()
/** Additive causal mask [T, T]: 0 on and below the diagonal, -1e9 above. */
export const causalMask = (T: number): tf.Tensor2D => {
  let data = maskCache.get(T)
  if (data === undefined) {
    data = new Float32Array(T * T)
    for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) data[i * T + j] = -1e9
    maskCache.set(T, data)
  }
  return tf.tensor2d(data, [T, T])
}

const blockMask = (rows0: number, rows1: number): tf.Tensor2D => {
  const cols = rows1
  const data = new Float32Array((rows1 - rows0) * cols)
  for (let i = rows0; i < rows1; i++) for (let j = i + 1; j < cols; j++) data[(i - rows0) * cols + j] = -1e9
  return tf.tensor2d(data, [rows1 - rows0, cols])
}

/** Query blocks `[start, end)` for causal attention over T positions. */
const queryBlocks = (T: number): ReadonlyArray<readonly [number, number]> => {
  const n = T >= 128 ? 4 : T >= 64 ? 2 : 1
  const size = Math.ceil(T / n)
  const out: Array<readonly [number, number]> = []
  for (let start = 0; start < T; start += size) out.push([start, Math.min(T, start + size)])
  return out
}

/**
 * Causal softmax attention over `BH` independent (batch, head) pairs, with a hand-written
 * gradient. Queries are split into blocks that only read the keys at or before them, which
 * skips most of the masked upper triangle (62.5% of the work at 4 blocks): wasm runs batched
 * products on a generic path whose cost is proportional to FLOPs. Per block j:
 * `s = q_j k_{<=j}^T + mask`, `p = softmax(s)`, `o_j = p v_{<=j}`; backward `dv = p^T do_j`,
 * `dp = do_j v^T`, `ds = p * (dp - sum(dp * p))`, `dq_j = ds k`, `dk = ds^T q_j`, every
 * transpose explicit. On wasm {@link causalAttentionByPair} is about twice as fast.
 *
 * @param q [BH, T, hd], already scaled by 1/sqrt(hd)
 * @param k [BH, T, hd]
 * @param v [BH, T, hd]
 * @returns [BH, T, hd]
 */
export const causalAttention = (q: tf.Tensor3D, k: tf.Tensor3D, v: tf.Tensor3D): tf.Tensor3D => {
  const [BH, T, hd] = q.shape
  const blocks = queryBlocks(T)
  const rowsOf = (x: tf.Tensor, start: number, end: number): tf.Tensor3D =>
    (start === 0 && end === T ? x : tf.slice(x, [0, start, 0], [BH, end - start, hd])) as tf.Tensor3D
  const padRows = (x: tf.Tensor, end: number): tf.Tensor =>
    end === T
      ? x
      : tf.pad(x, [
          [0, 0],
          [0, T - end],
          [0, 0]
        ])
  const f = tf.customGrad((...args: Array<tf.Tensor | tf.GradSaveFunc>) => {
    const [q0, k0, v0, save] = args as [tf.Tensor, tf.Tensor, tf.Tensor, tf.GradSaveFunc]
    // per block: q rows, k and v prefixes, probabilities; saved for the backward pass (a wasm
    // slice copies its whole input, so each is cut once)
    const parts = blocks.map(([start, end]) => {
      const qj = rowsOf(q0, start, end)
      const kj = rowsOf(k0, 0, end)
      const vj = rowsOf(v0, 0, end)
      const p = tf.softmax(tf.add(tf.matMul(qj, swapLast(kj) as tf.Tensor3D), blockMask(start, end))) as tf.Tensor3D
      return { qj, kj, vj, p, out: tf.matMul(p, vj) }
    })
    save(parts.flatMap(({ qj, kj, vj, p }) => [qj, kj, vj, p]))
    const outs = parts.map((part) => part.out)
    return {
      value: outs.length === 1 ? outs[0]! : tf.concat(outs, 1),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const dq: tf.Tensor[] = []
        let dk: tf.Tensor | undefined
        let dv: tf.Tensor | undefined
        blocks.forEach(([start, end], j) => {
          const [qj, kj, vj, p] = saved.slice(4 * j, 4 * j + 4) as [tf.Tensor3D, tf.Tensor3D, tf.Tensor3D, tf.Tensor3D]
          const dyj = rowsOf(dy, start, end)
          const dvj = padRows(tf.matMul(swapLast(p) as tf.Tensor3D, dyj), end)
          const dp = tf.matMul(dyj, swapLast(vj) as tf.Tensor3D)
          const ds = tf.mul(p, tf.sub(dp, tf.sum(tf.mul(dp, p), -1, true))) as tf.Tensor3D
          dq.push(tf.matMul(ds, kj))
          const dkj = padRows(tf.matMul(swapLast(ds) as tf.Tensor3D, qj), end)
          dk = dk === undefined ? dkj : tf.add(dk, dkj)
          dv = dv === undefined ? dvj : tf.add(dv, dvj)
        })
        return [dq.length === 1 ? dq[0]! : tf.concat(dq, 1), dk!, dv!]
      }
    }
  }) as unknown as (q: tf.Tensor, k: tf.Tensor, v: tf.Tensor) => tf.Tensor3D
  return f(q, k, v)
}

/** The [rows, cols] matrices of `x` [n, rows, cols], read once and uploaded one by one. */
const matricesOf = (x: tf.Tensor): tf.Tensor2D[] => {
  const [n, rows, cols] = x.shape as [number, number, number]
  const data = x.dataSync() as Float32Array
  const size = rows * cols
  return Array.from({ length: n }, (_, i) => tf.tensor2d(data.slice(i * size, (i + 1) * size), [rows, cols]))
}

/**
 * {@link causalAttention} as one 2-D product per (batch, head) pair, for wasm: its batched
 * products run a scalar loop (under 1 GFLOP/s), its 2-D products XNNPACK (about 10x faster).
 * The pairs are cut on the host (one bulk read, then uploads): a wasm slice or unstack copies
 * its whole input once per output. Every product keeps the large [T, T] operand on the left
 * (XNNPACK repacks its right operand on every call). Backward as {@link causalAttention}, with
 * the softmax row term `sum_j p_ij dp_ij` computed as `sum_d do_id o_id` (FlashAttention's
 * `D`) and folded into the `dp` product as an extra column: `[do, -D] [v, 1]^T = dp - D`.
 *
 * @param q [BH, T, hd], already scaled by 1/sqrt(hd)
 * @param k [BH, T, hd]
 * @param v [BH, T, hd]
 * @returns [BH, T, hd]
 */
export const causalAttentionByPair = (q: tf.Tensor3D, k: tf.Tensor3D, v: tf.Tensor3D): tf.Tensor3D => {
  const [BH, T] = q.shape
  const f = tf.customGrad((...args: Array<tf.Tensor | tf.GradSaveFunc>) => {
    const [q0, k0, v0, save] = args as [tf.Tensor3D, tf.Tensor3D, tf.Tensor3D, tf.GradSaveFunc]
    const mask = causalMask(T)
    const qs = matricesOf(q0)
    const kT = matricesOf(tf.transpose(k0, [0, 2, 1]))
    const vs = matricesOf(v0)
    const ps = qs.map((qp, i) => tf.softmax(tf.add(tf.matMul(qp, kT[i]!), mask)) as tf.Tensor2D)
    const out = tf.stack(ps.map((p, i) => tf.matMul(p, vs[i]!))) as tf.Tensor3D
    save([q0, k0, v0, out, ...ps])
    return {
      value: out,
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [sq, sk, sv, so, ...sp] = saved as [tf.Tensor3D, tf.Tensor3D, tf.Tensor3D, tf.Tensor3D, ...tf.Tensor2D[]]
        const rowTerm = tf.sum(tf.mul(dy, so), -1, true)
        const dyAug = matricesOf(tf.concat([dy, tf.neg(rowTerm)], 2))
        const vAugT = matricesOf(tf.concat([tf.transpose(sv, [0, 2, 1]), tf.ones([BH, 1, T])], 1))
        const dys = matricesOf(dy)
        const ks = matricesOf(sk)
        const qs = matricesOf(sq)
        const dq: tf.Tensor[] = []
        const dk: tf.Tensor[] = []
        const dv: tf.Tensor[] = []
        sp.forEach((p, i) => {
          dv.push(tf.matMul(tf.transpose(p), dys[i]!))
          const ds = tf.mul(p, tf.matMul(dyAug[i]!, vAugT[i]!)) as tf.Tensor2D
          dq.push(tf.matMul(ds, ks[i]!))
          dk.push(tf.matMul(tf.transpose(ds), qs[i]!))
        })
        return [tf.stack(dq), tf.stack(dk), tf.stack(dv)]
      }
    }
  }) as unknown as (q: tf.Tensor, k: tf.Tensor, v: tf.Tensor) => tf.Tensor3D
  return f(q, k, v)
}

const windowMasks = new Map<string, Float32Array>()
/** Additive mask [T, T]: 0 where key j is visible to query i (j <= i, and i - j < window), -1e9 elsewhere. */
export const windowMask = (T: number, window: number | undefined): tf.Tensor2D => {
  const key = `${T}|${window ?? 0}`
  let data = windowMasks.get(key)
  if (data === undefined) {
    data = new Float32Array(T * T)
    for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) if (j > i || (window !== undefined && i - j >= window)) data[i * T + j] = -1e9
    windowMasks.set(key, data)
  }
  return tf.tensor2d(data, [T, T])
}

/**
 * Causal attention with a sliding window and soft-capped scores (Gemma 2:
 * `s = c tanh(q k^T / c)`), differentiated by TensorFlow.js: the layers that need either
 * (Mistral, Phi-3, Gemma); plain layers keep {@link causalAttention}.
 *
 * @param q [BH, T, hd], already scaled
 * @param k [BH, T, hd]
 * @param v [BH, T, hd]
 * @param window keys visible to a query: the last `window` positions, itself included (all when undefined)
 * @param softcap `c`, or undefined for none
 * @returns [BH, T, hd]
 */
export const maskedAttention = (q: tf.Tensor3D, k: tf.Tensor3D, v: tf.Tensor3D, window: number | undefined, softcap: number | undefined): tf.Tensor3D => {
  let s: tf.Tensor = mm(q, swapLast(k))
  if (softcap !== undefined) s = tf.mul(tf.tanh(tf.div(s, softcap)), softcap)
  const p = tf.softmax(tf.add(s, windowMask(q.shape[1], window)))
  return mm(p as tf.Tensor3D, v)
}
