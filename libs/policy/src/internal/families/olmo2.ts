/**
 * OLMo 2 (`Olmo2ForCausalLM`): Llama with norms after attention and after the MLP instead of
 * before (`post_attention_layernorm`, `post_feedforward_layernorm`), and an RMSNorm of the whole
 * query and key projections (weights [heads * head_dim], [kv_heads * head_dim]).
 */
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { validated, type Family } from '../../Family.js'
import { llamaLike } from './read.js'

export const olmo2: Family = {
  modelTypes: ['olmo2'],
  architecture: 'Olmo2ForCausalLM',
  config: (cfg) =>
    pipe(
      llamaLike(cfg, { defaultTheta: 500000 }),
      E.map((c) => ({ ...c, blockNorms: 'post' as const, qkNorm: 'full' as const })),
      E.chain(validated)
    )
}
