/**
 * The incremental forward pass for sampling (never differentiated), written for the per-op
 * cost of TensorFlow.js: a decode step on a small batch is dominated by op dispatch (tens of
 * microseconds per op on wasm), not arithmetic. So only the weight products run as tensor ops
 * (one product per block: q|k|v, o, gate|up, down, head; see `decodeWeights.ts` for the two
 * layouts of the weights they read). Everything between them
 * (norms, RoPE, attention over the cache, SwiGLU)
 * runs on Float32Arrays in JavaScript, and the KV cache is a preallocated Float32Array per
 * layer written in place at each slot's own position: no concatenation, no holes. Attention,
 * the hot loop, runs in the WebAssembly SIMD kernel over the cache's own memory (`kvArena.ts`)
 * where the engine has one, in JavaScript (`hostKernels.attend`) elsewhere. Canon mixing
 * (`ModelConfig.canonSpan`) keeps each slot's last few residual rows per layer beside the cache.
 */
import * as tf from '@tensorflow/tfjs'
import { canonSpan, headDim, isSliding, queryScale, type ModelConfig } from '../ModelConfig.js'
import type { HostNorms, Prepared } from './decodeWeights.js'
import { activate, attend, normalize, normGroups, placeQkv, type AttendExtras } from './hostKernels.js'
import { reserve, type Cache } from './kvCache.js'
import { layerRope, tableOf, type RopeTable } from './rope.js'

/** Where the rows of a forward call come from: each row's slot, position and index in its item. */
interface RowsOf {
  readonly slot: Int32Array
  readonly pos: Int32Array
  readonly index: Int32Array
}

/**
 * A block's input with canon mixing, on the host (see `transformer.canonMix`): row r plus
 * `weight[k-1]` times its slot's residual row k positions back, from this call's rows or from
 * the slot's memory `history`; then the rows are remembered.
 */
const canonMixHost = (x: Float32Array, rows: RowsOf, D: number, span: number, maxLen: number, weight: Float32Array, history: Float32Array): Float32Array => {
  const M = rows.slot.length
  const out = new Float32Array(x)
  for (let r = 0; r < M; r++) {
    const slot = rows.slot[r]!
    const pos = rows.pos[r]!
    const index = rows.index[r]!
    for (let k = 1; k <= span && k <= pos; k++) {
      const from = index >= k ? x : history
      const at = index >= k ? (r - k) * D : (slot * maxLen + pos - k) * D
      const wk = (k - 1) * D
      for (let j = 0; j < D; j++) out[r * D + j]! += weight[wk + j]! * from[at + j]!
    }
  }
  for (let r = 0; r < M; r++) history.set(x.subarray(r * D, (r + 1) * D), (rows.slot[r]! * maxLen + rows.pos[r]!) * D)
  return out
}

/** Tokens to run for one slot, appended after its cached positions. */
export interface Item {
  readonly slot: number
  readonly tokens: ArrayLike<number>
}

/** One row of a forward call: a token, its slot, its position there and its index in its item. */
interface Row {
  readonly slot: number
  readonly pos: number
  readonly index: number
  readonly token: number
  /** The token before it in its slot (-1 at position 0). */
  readonly previous: number
}

/** The rows of `items`, item after item, placed after each slot's cached positions. */
const rowsOfItems = (cache: Cache, items: ReadonlyArray<Item>): ReadonlyArray<Row> => {
  const rows: Row[] = []
  for (const item of items) {
    const start = cache.lengths[item.slot]!
    for (let i = 0; i < item.tokens.length; i++)
      rows.push({
        slot: item.slot,
        pos: start + i,
        index: i,
        token: item.tokens[i]!,
        previous: i === 0 ? (start === 0 ? -1 : cache.last[item.slot]!) : item.tokens[i - 1]!
      })
  }
  return rows
}

/** The rows' input embeddings (token, learned position, previous token) gathered on the backend: [rows, dModel] on the host. */
const embedRows = (prep: Prepared, rows: ReadonlyArray<Row>): Float32Array => {
  const M = rows.length
  let x = new Float32Array(0)
  tf.tidy(() => {
    let e = tf.gather(
      prep.embed,
      tf.tensor1d(
        Int32Array.from(rows, (r) => r.token),
        'int32'
      )
    )
    if (prep.positions !== undefined)
      e = tf.add(
        e,
        tf.gather(
          prep.positions,
          tf.tensor1d(
            Int32Array.from(rows, (r) => r.pos),
            'int32'
          )
        )
      )
    if (prep.previous !== undefined) {
      const gathered = tf.gather(
        prep.previous,
        tf.tensor1d(
          Int32Array.from(rows, (r) => Math.max(r.previous, 0)),
          'int32'
        )
      )
      e = tf.add(
        e,
        tf.mul(
          gathered,
          tf.tensor2d(
            Float32Array.from(rows, (r) => (r.previous < 0 ? 0 : 1)),
            [M, 1]
          )
        )
      )
    }
    x = new Float32Array(e.dataSync()) // a copy: the layers update it in place
  })
  const scale = prep.config.embedScale
  const f32 = scale === undefined ? 1 : Math.fround(scale) // the float32 product the trunk computes
  if (scale !== undefined) for (let i = 0; i < x.length; i++) x[i] = x[i]! * f32
  return x
}

/** What the layers of one forward call share: its rows, each layer's RoPE table, scratch buffers. */
interface Pass {
  readonly rows: RowsOf
  readonly tables: ReadonlyArray<RopeTable | undefined>
  /** [rows, heads * headDim]: the attention output of the current layer. */
  readonly attended: Float32Array
  readonly qv: Float64Array
  readonly rotScratch: Float32Array
  readonly acc: Float64Array
  /** One per cached position. */
  readonly scores: Float64Array
}

/** The call's rows and buffers; made after `reserve`, as the scores span the cache's capacity. */
const makePass = (config: ModelConfig, cache: Cache, rows: ReadonlyArray<Row>): Pass => {
  const hd = headDim(config)
  return {
    rows: { slot: Int32Array.from(rows, (r) => r.slot), pos: Int32Array.from(rows, (r) => r.pos), index: Int32Array.from(rows, (r) => r.index) },
    tables: Array.from({ length: config.layers }, (_, l) => {
      const spec = layerRope(config, l)
      return spec === undefined ? undefined : tableOf(spec, config.maxLen)
    }),
    attended: new Float32Array(rows.length * config.heads * hd),
    qv: new Float64Array(hd),
    rotScratch: new Float32Array(hd),
    acc: new Float64Array(hd),
    scores: new Float64Array(cache.capacity)
  }
}

/** Query and key norms (`qkNorm`) on each row of `P` = [q | k | v], then the attention scale on q. */
const normQk = (config: ModelConfig, norms: HostNorms, P: Float32Array, M: number, width: number): void => {
  if (norms.q === undefined || norms.k === undefined) return
  const qWidth = config.heads * headDim(config)
  const kWidth = config.kvHeads * headDim(config)
  const scale = queryScale(config)
  for (let m = 0; m < M; m++) {
    const o = m * width
    normGroups(P, o, o + qWidth, norms.q, config.normEps)
    normGroups(P, o + qWidth, o + qWidth + kWidth, norms.k, config.normEps)
    for (let j = o; j < o + qWidth; j++) P[j] = P[j]! * scale
  }
}

/** Adds `y` [M, D] to the residual rows `x`, through the norm `norm` first when there is one. */
const addResidual = (config: ModelConfig, x: Float32Array, y: Float32Array, norm: Float32Array | undefined, M: number): void => {
  if (norm !== undefined) normGroups(y, 0, M * config.dModel, norm, config.normEps)
  for (let i = 0; i < M * config.dModel; i++) x[i]! += y[i]!
}

/** The attention of layer `l` on the rows through the cache: the plain kernel (wasm where the cache has an arena), or with the window and soft-cap. */
const attendLayer = (config: ModelConfig, cache: Cache, pass: Pass, P: Float32Array, width: number, l: number): void => {
  const hd = headDim(config)
  const extras: AttendExtras = { window: isSliding(config, l) ? config.slidingWindow! : Infinity, softcap: config.attnSoftcap ?? 0 }
  const { slot, pos } = pass.rows
  const plain = extras.window === Infinity && extras.softcap === 0
  if (plain && cache.arena !== undefined) cache.arena.attend(l, P, width, slot, pos, pass.attended)
  else
    attend(
      P,
      width,
      cache.k[l]!,
      cache.v[l]!,
      cache.capacity,
      slot,
      pos,
      config.heads,
      config.kvHeads,
      hd,
      config.heads * hd,
      pass.scores,
      pass.qv,
      pass.acc,
      pass.attended,
      extras
    )
}

/**
 * Layer `l` on the residual rows `x` ([rows, dModel], updated in place): attention over the
 * cache (the rows' keys and values written into it first), then the MLP.
 */
const runLayer = (prep: Prepared, cache: Cache, pass: Pass, x: Float32Array, l: number): void => {
  const config = prep.config
  const layer = prep.layers[l]!
  const norms = prep.norms[l]!
  const D = config.dModel
  const hd = headDim(config)
  const qkWidth = (config.heads + config.kvHeads) * hd
  const width = qkWidth + config.kvHeads * hd
  const M = pass.rows.slot.length
  const span = canonSpan(config)
  const mixed = (site: 'attn' | 'mlp'): Float32Array =>
    span > 0 ? canonMixHost(x, pass.rows, D, span, cache.maxLen, prep.canon[l]![site], cache.canon[l]![site]) : x
  const normedInput = (site: 'attn' | 'mlp', folded: boolean): Float32Array => (folded ? normalize(config, mixed(site), M) : mixed(site))
  const P = layer.qkv(normedInput('attn', layer.qkvNormed), M)
  normQk(config, norms, P, M, width)
  placeQkv(
    P,
    width,
    qkWidth,
    pass.tables[l],
    cache.k[l]!,
    cache.v[l]!,
    cache.capacity,
    pass.rows.slot,
    pass.rows.pos,
    config.heads,
    config.kvHeads,
    hd,
    pass.rotScratch
  )
  attendLayer(config, cache, pass, P, width, l)
  addResidual(config, x, layer.o(pass.attended, M), norms.postAttn, M)
  const mlpInput = normedInput('mlp', layer.upNormed)
  const mlpOut = layer.mlp !== undefined ? layer.mlp(mlpInput, M) : layer.down(activate(config.activation, layer.up(mlpInput, M), M, config.ffn), M)
  addResidual(config, x, mlpOut, norms.postMlp, M)
}

/** Advances the slots' lengths and last tokens past `items`. */
const advance = (cache: Cache, items: ReadonlyArray<Item>): void =>
  items.forEach((item) => {
    cache.lengths[item.slot] = cache.lengths[item.slot]! + item.tokens.length
    if (item.tokens.length > 0) cache.last[item.slot] = item.tokens[item.tokens.length - 1]!
  })

/** The next-token logits after each item's last row of `x`: [items.length * vocab]. */
const headLogits = (prep: Prepared, x: Float32Array, items: ReadonlyArray<Item>): Float32Array => {
  const D = prep.config.dModel
  const last = new Float32Array(items.length * D)
  let end = 0
  items.forEach((item, r) => {
    end += item.tokens.length
    last.set(x.subarray((end - 1) * D, end * D), r * D)
  })
  const z = prep.head(normalize(prep.config, last, items.length), items.length)
  const cap = prep.config.logitSoftcap
  if (cap !== undefined) for (let i = 0; i < z.length; i++) z[i] = cap * Math.tanh(z[i]! / cap)
  return z
}

/**
 * Runs `items` through the model, writing their keys and values into the cache and advancing
 * the slots' lengths. Returns the next-token logits after each item's last token
 * ([items.length * vocab]).
 */
export const forward = (prep: Prepared, cache: Cache, items: ReadonlyArray<Item>): Float32Array => {
  const rows = rowsOfItems(cache, items)
  reserve(
    prep.config,
    cache,
    rows.reduce((n, r) => Math.max(n, r.pos + 1), 0)
  )
  const x = embedRows(prep, rows)
  const pass = makePass(prep.config, cache, rows)
  prep.layers.forEach((_, l) => runLayer(prep, cache, pass, x, l))
  advance(cache, items)
  return headLogits(prep, x, items)
}
