/**
 * SmolLM3 (`SmolLM3ForCausalLM`): Llama where every `no_rope_layer_interval`-th layer has no
 * positions (NoPE): `no_rope_layers[i]` is 1 where layer i uses RoPE, 0 where not.
 */
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { validated, type Family, type HfConfig } from '../../Family.js'
import type { ModelConfig } from '../../ModelConfig.js'
import { llamaLike } from './read.js'
import { qwenSliding } from './qwen2.js'

const ropeLayers = (cfg: HfConfig, config: ModelConfig): E.Either<string, ModelConfig> => {
  const flags = cfg['no_rope_layers']
  const interval = typeof cfg['no_rope_layer_interval'] === 'number' ? cfg['no_rope_layer_interval'] : 4
  const uses = Array.isArray(flags) ? flags.map((f) => f === 1 || f === true) : Array.from({ length: config.layers }, (_, i) => (i + 1) % interval !== 0)
  if (uses.length !== config.layers) return E.left(`no_rope_layers has ${uses.length} entries for ${config.layers} layers`)
  return E.right(uses.every(Boolean) ? config : { ...config, ropeLayers: uses })
}

export const smollm3: Family = {
  modelTypes: ['smollm3'],
  architecture: 'SmolLM3ForCausalLM',
  config: (cfg) =>
    pipe(
      llamaLike(cfg, { defaultTheta: 2e6 }),
      E.chain((c) => ropeLayers(cfg, c)),
      E.chain((c) => qwenSliding(cfg, c)),
      E.chain(validated)
    )
}
