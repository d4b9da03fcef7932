/**
 * A KV cache's home in WebAssembly memory: one memory and one instance of the attention kernel
 * per cache (per group of layers past 2 GiB), holding every layer's keys and values at full
 * length and the kernel's scratch, so
 * that the kernel reads the cache where `placeQkv` writes it (copying it per call would cost as
 * much as the attention). The memory is sized once, at the cache's creation, and never grows:
 * its buffer, and so the Float32Array views the cache hands out, stay valid for its lifetime.
 * Untouched pages cost no physical memory on the usual engines (they are mapped zero pages), so
 * reserving `maxLen` positions up front is cheap. Dropping the arena frees it with its memory.
 */
import type { AttendExport, AttendKernel } from './attendKernel.js'

/** The sizes an arena is laid out for. */
export interface ArenaShape {
  readonly layers: number
  readonly heads: number
  readonly kvHeads: number
  readonly headDim: number
  readonly slots: number
  /** Positions per slot: the cache's capacity. */
  readonly maxLen: number
}

/** A cache's memory: per layer views of keys and values [slots, kvHeads, maxLen, headDim], and the kernel. */
export interface KvArena {
  readonly k: ReadonlyArray<Float32Array>
  readonly v: ReadonlyArray<Float32Array>
  /**
   * Attention of the rows over layer `layer`'s cache (the arguments of `hostKernels.attend`):
   * queries from `P` ([rows, width], the first heads * headDim of each row), outputs into
   * `attended` ([rows, heads * headDim]).
   */
  readonly attend: (layer: number, P: Float32Array, width: number, slotOf: Int32Array, posOf: Int32Array, attended: Float32Array) => void
  readonly dispose: () => void
}

/** Rows per kernel call: the scratch holds this many queries and outputs (a prefill of more rows takes several calls). */
export const rowsPerCall = 256

/** Largest memory an arena's instance takes (2 GiB); a bigger cache is split by layers, one layer bigger stays on the JavaScript kernel. */
export const maxBytes = 2 ** 31

const PAGE = 65536

/** Byte offsets of each region (16-byte aligned: headDim is a multiple of 4). */
interface Layout {
  readonly k: ReadonlyArray<number>
  readonly v: ReadonlyArray<number>
  readonly q: number
  readonly out: number
  readonly slots: number
  readonly positions: number
  readonly scores: number
  readonly bytes: number
}

const layoutOf = (shape: ArenaShape): Layout => {
  const kvBytes = shape.slots * shape.kvHeads * shape.maxLen * shape.headDim * 4
  const rowBytes = rowsPerCall * shape.heads * shape.headDim * 4
  const q = 2 * shape.layers * kvBytes
  const slots = q + 2 * rowBytes
  const scores = slots + 2 * rowsPerCall * 4
  return {
    k: Array.from({ length: shape.layers }, (_, l) => 2 * l * kvBytes),
    v: Array.from({ length: shape.layers }, (_, l) => (2 * l + 1) * kvBytes),
    q,
    out: q + rowBytes,
    slots,
    positions: slots + rowsPerCall * 4,
    scores,
    bytes: scores + (Math.ceil(shape.maxLen / 4) + 1) * 16
  }
}

let live = 0

/** Arenas made and not yet disposed, in this thread (what a test of disposal watches). */
export const liveArenas = (): number => live

/** A new memory, or undefined when the engine refuses one that large. */
const allocate = (kernel: AttendKernel, bytes: number): { readonly buffer: ArrayBuffer } | undefined => {
  const pages = Math.ceil(bytes / PAGE)
  try {
    return new kernel.wasm.Memory({ initial: pages, maximum: pages })
  } catch (e) {
    if (e instanceof RangeError) return undefined
    throw e
  }
}

/** One memory and kernel instance for all of `shape`'s layers (within the limit: checked by the caller). */
const oneArena = (kernel: AttendKernel, shape: ArenaShape): Omit<KvArena, 'dispose'> | undefined => {
  const { heads: H, kvHeads: Hkv, headDim: hd, maxLen } = shape
  const layout = layoutOf(shape)
  const memory = allocate(kernel, layout.bytes)
  if (memory === undefined) return undefined
  const run = new kernel.wasm.Instance(kernel.module, { env: { memory } }).exports['attend'] as AttendExport
  const buffer = memory.buffer
  const kvLength = shape.slots * Hkv * maxLen * hd
  const qWidth = H * hd
  const q = new Float32Array(buffer, layout.q, rowsPerCall * qWidth)
  const out = new Float32Array(buffer, layout.out, rowsPerCall * qWidth)
  const slots = new Int32Array(buffer, layout.slots, rowsPerCall)
  const positions = new Int32Array(buffer, layout.positions, rowsPerCall)
  return {
    k: layout.k.map((at) => new Float32Array(buffer, at, kvLength)),
    v: layout.v.map((at) => new Float32Array(buffer, at, kvLength)),
    attend: (layer, P, width, slotOf, posOf, attended) => {
      const M = slotOf.length
      for (let m0 = 0; m0 < M; m0 += rowsPerCall) {
        const rows = Math.min(rowsPerCall, M - m0)
        for (let i = 0; i < rows; i++) q.set(P.subarray((m0 + i) * width, (m0 + i) * width + qWidth), i * qWidth)
        slots.set(slotOf.subarray(m0, m0 + rows))
        positions.set(posOf.subarray(m0, m0 + rows))
        run(layout.q, layout.k[layer]!, layout.v[layer]!, layout.slots, layout.positions, layout.out, layout.scores, rows, H, Hkv, hd, maxLen)
        attended.set(out.subarray(0, rows * qWidth), m0 * qWidth)
      }
    }
  }
}

/**
 * An arena for `shape` on `kernel`, or undefined where the kernel does not apply: a head width
 * that is not a multiple of 4 (the kernel's f32x4 lanes), one layer's cache beyond `limit`
 * (default {@link maxBytes}), or a memory the engine does not allocate. The caller then keeps
 * the cache in JavaScript arrays. A cache whose layers together pass the limit is split into
 * groups of consecutive layers, each in a memory and kernel instance of its own (Qwen3-0.6B's
 * 28 layers for 16 slots of 604 positions take 2.2 GB: without the split that cache fell back to
 * the JavaScript kernel, three quarters of a GRPO iteration's rollout).
 */
export const makeArena = (kernel: AttendKernel, shape: ArenaShape, limit = maxBytes): KvArena | undefined => {
  const { heads: H, kvHeads: Hkv, headDim: hd } = shape
  if (hd % 4 !== 0 || H % Hkv !== 0) return undefined
  let perGroup = shape.layers
  while (perGroup > 0 && layoutOf({ ...shape, layers: perGroup }).bytes > limit) perGroup--
  if (perGroup === 0) return undefined
  const groups: Array<Omit<KvArena, 'dispose'>> = []
  for (let first = 0; first < shape.layers; first += perGroup) {
    const group = oneArena(kernel, { ...shape, layers: Math.min(perGroup, shape.layers - first) })
    if (group === undefined) return undefined
    groups.push(group)
  }
  let disposed = false
  live += 1
  return {
    k: groups.flatMap((g) => g.k),
    v: groups.flatMap((g) => g.v),
    attend: (layer, P, width, slotOf, posOf, attended) => {
      if (disposed) throw new Error('KV arena used after dispose')
      groups[Math.floor(layer / perGroup)]!.attend(layer % perGroup, P, width, slotOf, posOf, attended)
    },
    dispose: () => {
      if (!disposed) live -= 1
      disposed = true
    }
  }
}
