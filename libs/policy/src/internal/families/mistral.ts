/**
 * Mistral (`MistralForCausalLM`): Llama with a sliding window in every layer
 * (`sliding_window`, none when null).
 */
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { validated, type Family } from '../../Family.js'
import type { ModelConfig } from '../../ModelConfig.js'
import { llamaLike, slidingOf } from './read.js'

export const mistral: Family = {
  modelTypes: ['mistral'],
  architecture: 'MistralForCausalLM',
  config: (cfg) =>
    pipe(
      llamaLike(cfg),
      E.chain((c) =>
        E.map((s: Partial<ModelConfig>) => ({ ...c, ...s }))(
          slidingOf({ ...cfg, layer_types: undefined }, c.layers, () => typeof cfg['sliding_window'] === 'number')
        )
      ),
      E.chain(validated)
    )
}
