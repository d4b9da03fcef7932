/**
 * Kernels of the pure-JS `cpu` backend that @tensorflow/tfjs-backend-cpu 4.22 computes far slower
 * than need be, replaced by ones that give the same bits.
 *
 * `UnsortedSegmentSum` (the gradient of `gather`: every embedding lookup's backward pass) is
 * computed upstream as, for each of the `numSegments` segments, a 0/1 mask times `x` through the
 * generic broadcasting loop, then a sum over rows: numSegments x rows x columns multiplications
 * with an index array allocated per element. A vocabulary of 503 and 1,280 tokens of width 16
 * took ~3 s a step, half of a small model's training on cpu. Here each row is added once into
 * its segment, in row order, in float64 as upstream's `sum` adds (masked-out rows add +-0, which
 * changes no sum), stored as float32; a column with a NaN or an infinity is NaN in every segment
 * but the one its row belongs to, as upstream's 0 x Inf = NaN makes it.
 */
import * as tf from '@tensorflow/tfjs'

/**
 * `unsortedSegmentSum` of float32 `x` (`rows` rows of `columns` values, row-major) by segment id
 * `ids` (one per row; an id outside [0, numSegments) adds nowhere), as upstream's cpu kernel
 * computes it, bit for bit.
 */
export const segmentSum = (x: ArrayLike<number>, ids: ArrayLike<number>, rows: number, columns: number, numSegments: number): Float32Array => {
  const sums = new Float64Array(numSegments * columns)
  // per column, the segment of its first non-finite value (-1: none yet; NaN: several segments or an id outside)
  const owner = new Float64Array(columns).fill(-1)
  for (let row = 0; row < rows; row++) {
    const id = ids[row]!
    const inRange = id >= 0 && id < numSegments
    const from = row * columns
    const to = id * columns
    for (let column = 0; column < columns; column++) {
      const value = x[from + column]!
      if (inRange) sums[to + column] = sums[to + column]! + value
      if (!Number.isFinite(value)) owner[column] = !inRange ? NaN : owner[column] === -1 || owner[column] === id ? id : NaN
    }
  }
  const out = new Float32Array(sums)
  for (let column = 0; column < columns; column++)
    if (owner[column] !== -1) for (let segment = 0; segment < numSegments; segment++) if (segment !== owner[column]) out[segment * columns + column] = NaN
  return out
}

interface CpuBackend {
  readonly data: { readonly get: (dataId: object) => { readonly values?: unknown } }
  readonly makeTensorInfo: (shape: number[], dtype: tf.DataType, values: Float32Array) => tf.TensorInfo
}

let upstream: tf.KernelConfig | undefined

/** The cpu backend's own `UnsortedSegmentSum` (for the checks that compare against it); undefined before {@link register}. */
export const upstreamSegmentSum = (): tf.KernelConfig | undefined => upstream

const fastSegmentSum =
  (original: tf.KernelFunc): tf.KernelFunc =>
  (args) => {
    const { x, segmentIds } = args.inputs as { readonly x: tf.TensorInfo; readonly segmentIds: tf.TensorInfo }
    const { numSegments } = args.attrs as unknown as { readonly numSegments: number }
    const rows = x.shape[0]
    if (x.dtype !== 'float32' || x.shape.length < 1 || segmentIds.shape.length !== 1 || segmentIds.shape[0] !== rows || !(numSegments >= 1))
      return original(args)
    const backend = args.backend as unknown as CpuBackend
    const values = backend.data.get(x.dataId).values as ArrayLike<number>
    const ids = backend.data.get(segmentIds.dataId).values as ArrayLike<number>
    const columns = tf.util.sizeFromShape(x.shape.slice(1))
    return backend.makeTensorInfo([numSegments, ...x.shape.slice(1)], 'float32', segmentSum(values, ids, rows ?? 0, columns, numSegments))
  }

/** Puts the kernels above in the cpu backend's place (once; a no-op where the cpu backend is not loaded). */
export const register = (): void => {
  if (upstream !== undefined) return
  const config = tf.getKernel('UnsortedSegmentSum', 'cpu')
  if (config === undefined) return
  upstream = config
  tf.unregisterKernel('UnsortedSegmentSum', 'cpu')
  tf.registerKernel({ ...config, kernelFunc: fastSegmentSum(config.kernelFunc) })
}
