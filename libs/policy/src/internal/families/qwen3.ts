/**
 * Qwen3 (`Qwen3ForCausalLM`): Llama with an RMSNorm of each query and key head (weights
 * [head_dim]) before RoPE, and a head width apart from hidden_size / heads.
 */
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { validated, type Family } from '../../Family.js'
import { llamaLike } from './read.js'
import { qwenSliding } from './qwen2.js'

export const qwen3: Family = {
  modelTypes: ['qwen3'],
  architecture: 'Qwen3ForCausalLM',
  config: (cfg) =>
    pipe(
      llamaLike(cfg),
      E.map((c) => ({ ...c, qkNorm: 'head' as const, headDim: c.headDim ?? c.dModel / c.heads })),
      E.chain((c) => qwenSliding(cfg, c)),
      E.chain(validated)
    )
}
