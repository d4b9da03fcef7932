/**
 * Gemma 2 (`Gemma2ForCausalLM`) and Gemma 3 text (`Gemma3ForCausalLM`): embeddings scaled by
 * sqrt(hidden_size), RMSNorms of `1 + w`, a norm before and after attention and before and after
 * the MLP, GeGLU (`gelu_pytorch_tanh`), the attention scale `query_pre_attn_scalar ** -0.5`,
 * sliding-window layers by `layer_types`; Gemma 2 soft-caps the attention scores and the final
 * logits, Gemma 3 norms each query and key head and gives sliding layers their own RoPE base.
 */
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { numberAt, validated, type Family, type HfConfig } from '../../Family.js'
import type { ModelConfig } from '../../ModelConfig.js'
import { llamaLike, ropeOf, ropeParameters, slidingOf } from './read.js'

const activations = { gelu_pytorch_tanh: 'geglu', gelu: 'geglu' } as const

/** What Gemma 2 and 3 share, with the layers that slide when `layer_types` is absent. */
const gemma = (cfg: HfConfig, slidingByDefault: (i: number) => boolean): E.Either<string, ModelConfig> =>
  pipe(
    E.Do,
    E.bind('base', () =>
      llamaLike(cfg, {
        tiedByDefault: true,
        activationKey: cfg['hidden_activation'] === undefined ? 'hidden_act' : 'hidden_activation',
        activationFallback: 'gelu_pytorch_tanh',
        activations
      })
    ),
    E.bind('scalar', () => numberAt(cfg, 'query_pre_attn_scalar')),
    E.bind('attnSoftcap', () => numberAt(cfg, 'attn_logit_softcapping')),
    E.bind('logitSoftcap', () => numberAt(cfg, 'final_logit_softcapping')),
    E.bind('sliding', ({ base }) => slidingOf(cfg, base.layers, slidingByDefault)),
    E.chain((r) =>
      cfg['use_bidirectional_attention'] === true ? E.left('use_bidirectional_attention true (an embedding model) is not supported') : E.right(r)
    ),
    E.map(({ base, scalar, attnSoftcap, logitSoftcap, sliding }) => ({
      ...base,
      ...sliding,
      headDim: base.headDim ?? base.dModel / base.heads,
      normOffset: true,
      blockNorms: 'sandwich' as const,
      embedScale: Math.sqrt(base.dModel),
      ...(scalar === undefined ? {} : { queryScale: 1 / Math.sqrt(scalar) }),
      ...(attnSoftcap === undefined ? {} : { attnSoftcap }),
      ...(logitSoftcap === undefined ? {} : { logitSoftcap })
    }))
  )

export const gemma2: Family = {
  modelTypes: ['gemma2'],
  architecture: 'Gemma2ForCausalLM',
  config: (cfg) =>
    pipe(
      gemma(cfg, (i) => i % 2 === 0),
      E.chain(validated)
    )
}

/**
 * Gemma 3's RoPE: transformers 5 keys `rope_parameters` by layer type (`full_attention`,
 * `sliding_attention`); 4.x has one `rope_scaling` for the full layers and
 * `rope_local_base_freq` for the sliding ones.
 */
const gemma3Rope = (cfg: HfConfig, config: ModelConfig): E.Either<string, ModelConfig> => {
  const keyed = typeof ropeParameters(cfg)['full_attention'] === 'object'
  const localBase = typeof cfg['rope_local_base_freq'] === 'number' ? cfg['rope_local_base_freq'] : 1e4
  return pipe(
    E.Do,
    E.bind('full', () => ropeOf(cfg, keyed ? ropeParameters(cfg, 'full_attention') : ropeParameters(cfg), 1e6)),
    E.bind('local', () => (keyed ? ropeOf(cfg, ropeParameters(cfg, 'sliding_attention'), localBase) : E.right({ theta: localBase, scaling: undefined }))),
    E.chain(({ full, local }) => {
      if (local.scaling !== undefined) return E.left('rope_parameters.sliding_attention: a scaled local RoPE is not supported')
      const { rope: _, ...rest } = config
      return E.right({ ...rest, ropeTheta: full.theta, ...(full.scaling === undefined ? {} : { rope: full.scaling }), localRopeTheta: local.theta })
    })
  )
}

export const gemma3: Family = {
  modelTypes: ['gemma3_text'],
  architecture: 'Gemma3ForCausalLM',
  config: (cfg) => {
    const pattern = typeof cfg['sliding_window_pattern'] === 'number' ? cfg['sliding_window_pattern'] : 6
    return pipe(
      gemma(cfg, (i) => (i + 1) % pattern !== 0),
      E.map((c) => ({ ...c, qkNorm: 'head' as const })),
      E.chain((c) => gemma3Rope(cfg, c)),
      E.chain(validated)
    )
  }
}
