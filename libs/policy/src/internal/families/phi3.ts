/**
 * Phi-3 and Phi-4-mini (`Phi3ForCausalLM`): Llama with fused projections (`qkv_proj` =
 * [q | k | v] rows, `gate_up_proj` = [gate | up] rows; split on loading, fused again on export),
 * RoPE on the first `partial_rotary_factor` of each head, and a sliding window in every layer
 * when `sliding_window` is set. LongRoPE (the 128k models) is not supported.
 */
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { validated, type Family, type Weights } from '../../Family.js'
import type { HostTensor } from '../../internal/weights.js'
import { headDim, type ModelConfig } from '../../ModelConfig.js'
import { layerPrefix } from '../layout.js'
import { llamaLike, ropeParameters, slidingOf } from './read.js'

/** Rows [from, to) of a [rows, cols] tensor. */
const rowsOf = (t: HostTensor, from: number, to: number): HostTensor => {
  const cols = t.shape[1]!
  return { shape: [to - from, cols], data: t.data.slice(from * cols, to * cols) }
}

const stack = (parts: ReadonlyArray<HostTensor>): HostTensor => {
  const data = new Float32Array(parts.reduce((n, p) => n + p.data.length, 0))
  let at = 0
  for (const p of parts) {
    data.set(p.data, at)
    at += p.data.length
  }
  return { shape: [parts.reduce((n, p) => n + p.shape[0]!, 0), parts[0]!.shape[1]!], data }
}

/** Each layer's fused weights and their parts: [fused name, [part name, rows]...]. */
const fusions = (config: ModelConfig): ReadonlyArray<readonly [string, ReadonlyArray<readonly [string, number]>]> =>
  Array.from({ length: config.layers }, (_, i) => {
    const p = layerPrefix(i)
    const q = config.heads * headDim(config)
    const kv = config.kvHeads * headDim(config)
    return [
      [
        `${p}.self_attn.qkv_proj.weight`,
        [
          [`${p}.self_attn.q_proj.weight`, q],
          [`${p}.self_attn.k_proj.weight`, kv],
          [`${p}.self_attn.v_proj.weight`, kv]
        ]
      ],
      [
        `${p}.mlp.gate_up_proj.weight`,
        [
          [`${p}.mlp.gate_proj.weight`, config.ffn],
          [`${p}.mlp.up_proj.weight`, config.ffn]
        ]
      ]
    ] as const
  }).flat()

const split = (config: ModelConfig, weights: Weights): Weights => {
  const out = new Map(weights)
  for (const [fused, parts] of fusions(config)) {
    const w = weights.get(fused)
    if (w === undefined) continue
    out.delete(fused)
    let at = 0
    for (const [name, rows] of parts) {
      out.set(name, rowsOf(w, at, at + rows))
      at += rows
    }
  }
  return out
}

const fuse = (config: ModelConfig, weights: Weights): Weights => {
  const out = new Map(weights)
  for (const [fused, parts] of fusions(config)) {
    const found = parts.map(([name]) => weights.get(name))
    if (found.some((w) => w === undefined)) continue
    parts.forEach(([name]) => out.delete(name))
    out.set(fused, stack(found as HostTensor[]))
  }
  return out
}

export const phi3: Family = {
  modelTypes: ['phi3'],
  architecture: 'Phi3ForCausalLM',
  config: (cfg) => {
    const type = ropeParameters(cfg)['rope_type'] ?? ropeParameters(cfg)['type']
    if (type === 'longrope' || type === 'su') return E.left(`rope_parameters.rope_type ${String(type)} (LongRoPE) is not supported`)
    return pipe(
      llamaLike(cfg),
      E.chain((c) =>
        E.map((s: Partial<ModelConfig>) => ({ ...c, ...s }))(
          slidingOf({ ...cfg, layer_types: undefined }, c.layers, () => typeof cfg['sliding_window'] === 'number')
        )
      ),
      E.chain(validated)
    )
  },
  fromHf: split,
  toHf: fuse
}
