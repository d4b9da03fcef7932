/**
 * Tensor building blocks written for the wasm backend (see docs/architecture.md and decision
 * 0002): a matMul whose gradient transposes explicitly, an embedding lookup whose
 * gradient is a one-hot product (no UnsortedSegmentSum), norms, activations, RoPE by reversal.
 */
import * as tf from '@tensorflow/tfjs'

/** Swaps the last two axes. */
export const swapLast = (x: tf.Tensor): tf.Tensor => {
  const perm = [...Array(x.rank).keys()]
  perm[x.rank - 1] = x.rank - 2
  perm[x.rank - 2] = x.rank - 1
  return tf.transpose(x, perm)
}

/** The kernel of {@link mm}: the backend's own BatchMatMul, with a gradient of explicit transposes. */
const MM = 'MtrlMatMul'

const registerMm = (): void => {
  const backend = tf.getBackend()
  if (tf.getKernel(MM, backend) === undefined) {
    const plain = tf.getKernel('BatchMatMul', backend)
    if (plain === undefined) throw new Error(`backend ${backend} has no BatchMatMul kernel`)
    tf.registerKernel({
      kernelName: MM,
      backendName: backend,
      kernelFunc: ({ inputs, backend: b }) => plain.kernelFunc({ inputs, backend: b, attrs: { transposeA: false, transposeB: false } })
    })
  }
  if (tf.getGradient(MM) === undefined)
    tf.registerGradient({
      kernelName: MM,
      inputsToSave: ['a', 'b'],
      // each input's gradient is made only when asked for: a frozen operand (LoRA's base) gets none
      gradFunc: (dy, saved) => {
        const [a, b] = saved as [tf.Tensor3D, tf.Tensor3D]
        return { a: () => tf.matMul(dy as tf.Tensor3D, swapLast(b) as tf.Tensor3D), b: () => tf.matMul(swapLast(a) as tf.Tensor3D, dy as tf.Tensor3D) }
      }
    })
}

/**
 * `a @ b` (same batch dims), whose gradient uses explicit transposes: wasm's BatchMatMul with
 * transpose flags is about 10x slower than a transpose followed by a plain product. As
 * `tf.matMul`'s own gradient, each input's gradient is lazy: made only for inputs the
 * gradient is asked for (a frozen weight gets none).
 */
export const mm = <T extends tf.Tensor>(a: T, b: tf.Tensor): T => {
  const outer = a.shape.slice(0, -2)
  const batch = outer.reduce((x, y) => x * y, 1)
  if (b.rank !== a.rank || b.shape.slice(0, -2).some((d, i) => d !== outer[i])) throw new Error(`mm: batch dims of [${a.shape}] and [${b.shape}] differ`)
  const [m, k] = a.shape.slice(-2) as [number, number]
  const n = b.shape[b.rank - 1]!
  registerMm()
  return tf.tidy(() => {
    const inputs = { a: tf.reshape(a, [batch, m, k]), b: tf.reshape(b, [batch, k, n]) }
    return tf.reshape(tf.engine().runKernel(MM, inputs) as tf.Tensor, [...outer, m, n]) as T
  })
}

/** Backends whose products take a transposed operand in place. */
const transposesInPlace = new Set(['tensorflow', 'webgpu', 'webgl'])

/** Whether the active backend's products take a transposed operand in place (no copy, no slowdown). */
export const transposesFlagged = (): boolean => transposesInPlace.has(tf.getBackend())

/**
 * `x @ w^T` for a Hugging Face weight `w` of shape [out, in]; `x` is [N, in]. An explicit
 * transpose then a plain product on wasm and cpu (wasm's flagged products are about 10x
 * slower), the flag elsewhere: there the product's own gradient (`dx = dy w`, `dw = dy^T x`,
 * each made only when asked for) runs, so a frozen weight (LoRA's base) gets no [out, in]
 * gradient in the backward pass.
 */
export const linear = (x: tf.Tensor2D, w: tf.Tensor2D): tf.Tensor2D => (transposesFlagged() ? tf.matMul(x, w, false, true) : mm(x, tf.transpose(w)))

const hasKernel = (name: string): boolean => tf.getKernel(name, tf.getBackend()) !== undefined

/**
 * Rows `ids` of `table` ([V, D] -> [N, D]). Where the backend has a gather gradient
 * (UnsortedSegmentSum) the plain gather is used; elsewhere (wasm) the gradient is a scatter-add
 * of `dy`'s rows on the host: one bulk read of `dy` and `ids`, N * D additions, instead of a
 * [V, N] one-hot product (as many FLOPs as a whole projection). The lookup is a host copy too.
 */
export const embed = (table: tf.Tensor2D, ids: tf.Tensor1D): tf.Tensor2D => {
  if (hasKernel('UnsortedSegmentSum')) return tf.gather(table, ids)
  const lookup = tf.customGrad((...args: Array<tf.Tensor | tf.GradSaveFunc>) => {
    const e = args[0] as tf.Tensor
    const save = args[1] as tf.GradSaveFunc
    const [vocab, d] = e.shape as [number, number]
    // closure tensors may be disposed by the caller's tidy before backprop: save them
    save([ids])
    // the lookup on the host too: wasm's GatherV2 is a generic per-element loop
    const table = e.dataSync()
    const tokens = ids.dataSync()
    const value = new Float32Array(tokens.length * d)
    for (let n = 0; n < tokens.length; n++) value.set(table.subarray(tokens[n]! * d, (tokens[n]! + 1) * d), n * d)
    return {
      value: tf.tensor2d(value, [tokens.length, d]),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const rows = saved[0]!.dataSync()
        const grad = dy.dataSync()
        const out = new Float32Array(vocab * d)
        for (let n = 0; n < rows.length; n++) {
          const to = rows[n]! * d
          const from = n * d
          for (let j = 0; j < d; j++) out[to + j]! += grad[from + j]!
        }
        return tf.tensor2d(out, [vocab, d])
      }
    }
  }) as unknown as (e: tf.Tensor) => tf.Tensor2D
  return lookup(table)
}

/**
 * `x[n, targets[n]]` for `x` [N, V]: a gather forward, a one-hot product backward (no gather
 * gradient needed).
 */
export const pick = (x: tf.Tensor2D, targets: tf.Tensor1D): tf.Tensor1D => {
  const [N, V] = x.shape
  const f = tf.customGrad((...args: Array<tf.Tensor | tf.GradSaveFunc>) => {
    const input = args[0] as tf.Tensor
    const save = args[1] as tf.GradSaveFunc
    save([targets])
    const flat = tf.add(tf.mul(tf.range(0, N, 1, 'int32'), tf.scalar(V, 'int32')), targets)
    return {
      value: tf.gather(tf.reshape(input, [-1]), flat),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => tf.mul(tf.cast(tf.oneHot(saved[0] as tf.Tensor1D, V), 'float32'), tf.reshape(dy, [N, 1]))
    }
  }) as unknown as (x: tf.Tensor) => tf.Tensor1D
  return f(x)
}

/**
 * `logSoftmax(x)[n, targets[n]]` for logits `x` [N, V], without the [N, V] log-softmax: the
 * log-normaliser comes from the softmax itself, `lse_n = max_v x[n, v] - log max_v p[n, v]`
 * (the largest probability is exactly `1 / sum_v exp(x[n, v] - max)`), and the gradient is
 * `dy_n (onehot(targets[n]) - p[n])`. On wasm the softmax kernel is vectorised while `Exp`,
 * which logSoftmax and its gradient each run over [N, V], is a scalar loop (about 8x slower).
 *
 * @param x [N, V]
 * @param targets int32 [N]
 * @returns [N]
 */
export const pickLogSoftmax = (x: tf.Tensor2D, targets: tf.Tensor1D): tf.Tensor1D => {
  const [N, V] = x.shape
  const f = tf.customGrad((...args: Array<tf.Tensor | tf.GradSaveFunc>) => {
    const input = args[0] as tf.Tensor2D
    const save = args[1] as tf.GradSaveFunc
    const p = tf.softmax(input)
    const lse = tf.sub(tf.max(input, -1), tf.log(tf.max(p, -1)))
    const flat = tf.add(tf.mul(tf.range(0, N, 1, 'int32'), tf.scalar(V, 'int32')), targets)
    save([p, targets])
    return {
      value: tf.sub(tf.gather(tf.reshape(input, [-1]), flat), lse),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [sp, st] = saved as [tf.Tensor2D, tf.Tensor1D]
        // not oneHot(..., 'float32'): wasm's OneHot ignores the dtype and writes int32 bits
        return tf.mul(tf.sub(tf.cast(tf.oneHot(st, V), 'float32'), sp), tf.reshape(dy, [N, 1]))
      }
    }
  }) as unknown as (x: tf.Tensor) => tf.Tensor1D
  return f(x)
}

/** RMSNorm over the last axis: `x / sqrt(mean(x^2) + eps) * w`. */
export const rmsNorm = (x: tf.Tensor, w: tf.Tensor, eps: number): tf.Tensor => tf.mul(tf.mul(x, tf.rsqrt(tf.add(tf.mean(tf.square(x), -1, true), eps))), w)

/** LayerNorm over the last axis (population variance, as PyTorch). */
export const layerNorm = (x: tf.Tensor, w: tf.Tensor, b: tf.Tensor, eps: number): tf.Tensor => {
  const centered = tf.sub(x, tf.mean(x, -1, true))
  const variance = tf.mean(tf.square(centered), -1, true)
  return tf.add(tf.mul(tf.mul(centered, tf.rsqrt(tf.add(variance, eps))), w), b)
}

/**
 * `SiLU(g) * u`, with a hand-written gradient: with `s = sigmoid(g)` and `a = g s`,
 * `du = dy a` and `dg = dy u s (1 + g - a)`: eight elementwise ops where autodiff runs ten (and
 * casts each product's inputs), all over the MLP's widest tensors. Only `g` and `u` are kept
 * for the backward pass, which recomputes `s` and `a` (the same values): two [N, ffn] tensors
 * less between the passes for a sigmoid and a product more.
 */
export const swiglu = (g: tf.Tensor, u: tf.Tensor): tf.Tensor => {
  const f = tf.customGrad((...args: Array<tf.Tensor | tf.GradSaveFunc>) => {
    const [g0, u0, save] = args as [tf.Tensor, tf.Tensor, tf.GradSaveFunc]
    save([g0, u0])
    return {
      value: tf.mul(tf.mul(g0, tf.sigmoid(g0)), u0),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [sg, su] = saved as [tf.Tensor, tf.Tensor]
        const ss = tf.sigmoid(sg)
        const sa = tf.mul(sg, ss)
        return [tf.mul(tf.mul(tf.mul(dy, su), ss), tf.add(tf.sub(sg, sa), 1)), tf.mul(dy, sa)]
      }
    }
  }) as unknown as (g: tf.Tensor, u: tf.Tensor) => tf.Tensor
  return f(g, u)
}

const GELU_C = Math.sqrt(2 / Math.PI)
/** GELU, tanh approximation (GPT-2's `gelu_new`). */
export const gelu = (x: tf.Tensor): tf.Tensor => tf.mul(tf.mul(x, 0.5), tf.add(tf.tanh(tf.mul(tf.add(x, tf.mul(tf.pow(x, 3), 0.044715)), GELU_C)), 1))

const rotations = new Map<string, { readonly r: Float32Array; readonly rT: Float32Array }>()
const rotationOf = (headDim: number, rotaryDim: number): { readonly r: Float32Array; readonly rT: Float32Array } => {
  let hit = rotations.get(`${headDim}|${rotaryDim}`)
  if (hit === undefined) {
    const half = rotaryDim / 2
    const r = new Float32Array(headDim * headDim)
    const rT = new Float32Array(headDim * headDim)
    for (let i = 0; i < half; i++) {
      r[(i + half) * headDim + i] = -1 // out[i] = -x[i + half]
      r[i * headDim + i + half] = 1 // out[i + half] = x[i]
      rT[i * headDim + i + half] = -1
      rT[(i + half) * headDim + i] = 1
    }
    hit = { r, rT }
    rotations.set(`${headDim}|${rotaryDim}`, hit)
  }
  return hit
}

/**
 * Hugging Face's `rotate_half` on the first `rotaryDim` dimensions of the last axis (all by
 * default; zero past them), as a product with a signed permutation.
 */
export const rotateHalf = (x: tf.Tensor, rotaryDim?: number): tf.Tensor => {
  const shape = x.shape
  const headDim = shape[shape.length - 1] ?? 0
  const { r, rT } = rotationOf(headDim, rotaryDim ?? headDim)
  const f = tf.customGrad((...args: Array<tf.Tensor | tf.GradSaveFunc>) => {
    const input = tf.reshape(args[0] as tf.Tensor, [-1, headDim]) as tf.Tensor2D
    return {
      value: tf.reshape(tf.matMul(input, tf.tensor2d(r, [headDim, headDim])), shape),
      gradFunc: (dy: tf.Tensor) => tf.reshape(tf.matMul(tf.reshape(dy, [-1, headDim]) as tf.Tensor2D, tf.tensor2d(rT, [headDim, headDim])), shape)
    }
  }) as unknown as (x: tf.Tensor) => tf.Tensor
  return f(x)
}

/**
 * Rotary embedding in Hugging Face's convention on `x` [..., heads, headDim]:
 * `x * cos + rotate_half(x) * sin`; `cos`/`sin` broadcast against `x` (1 and 0 past the first
 * `rotaryDim` dimensions, which alone rotate: partial rotary).
 */
export const rope = (x: tf.Tensor, cos: tf.Tensor, sin: tf.Tensor, rotaryDim?: number): tf.Tensor =>
  tf.add(tf.mul(x, cos), tf.mul(rotateHalf(x, rotaryDim), sin))

/** Repeats each of the kvHeads heads (axis 1 of [B, kvHeads, X, Y]) `groups` times. */
export const repeatKv = (x: tf.Tensor4D, groups: number): tf.Tensor4D => {
  if (groups === 1) return x
  const [b, kv, p, q] = x.shape
  return tf.reshape(tf.tile(tf.reshape(x, [b * kv, 1, p * q]), [1, groups, 1]), [b, kv * groups, p, q])
}

const detachGrad = (...args: Array<tf.Tensor | tf.GradSaveFunc>): { value: tf.Tensor; gradFunc: (dy: tf.Tensor) => tf.Tensor } => {
  const x = args[0] as tf.Tensor
  return { value: tf.clone(x), gradFunc: (dy: tf.Tensor) => tf.zerosLike(dy) }
}
/** `x` forward, no gradient backward (TensorFlow.js has no stopGradient). */
export const detach = tf.customGrad(detachGrad) as unknown as <T extends tf.Tensor>(x: T) => T
