/**
 * Llama (`LlamaForCausalLM`): grouped-query attention, RoPE (default, `linear`, `llama3`,
 * `yarn`), RMSNorm, SwiGLU; Llama 3.2 ties its embeddings. The layout every family starts from.
 */
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { validated, type Family } from '../../Family.js'
import { llamaLike } from './read.js'

export const llama: Family = {
  modelTypes: ['llama'],
  architecture: 'LlamaForCausalLM',
  config: (cfg) => pipe(llamaLike(cfg), E.chain(validated))
}
