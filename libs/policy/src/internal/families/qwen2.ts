/**
 * Qwen2 and Qwen2.5 (`Qwen2ForCausalLM`): Llama with q/k/v biases, usually tied embeddings;
 * sliding-window layers where `use_sliding_window` and `layer_types` say so.
 */
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { validated, type Family, type HfConfig } from '../../Family.js'
import type { ModelConfig } from '../../ModelConfig.js'
import { llamaLike, slidingOf } from './read.js'

/** Qwen's windows: only with `use_sliding_window`, by `layer_types`. */
export const qwenSliding = (cfg: HfConfig, config: ModelConfig): E.Either<string, ModelConfig> => {
  if (cfg['use_sliding_window'] !== true) return E.right(config)
  if (!Array.isArray(cfg['layer_types'])) return E.left('use_sliding_window true needs layer_types (a config.json of transformers 5)')
  return E.map((s: Partial<ModelConfig>) => ({ ...config, ...s }))(slidingOf(cfg, config.layers))
}

export const qwen2: Family = {
  modelTypes: ['qwen2'],
  architecture: 'Qwen2ForCausalLM',
  config: (cfg) =>
    pipe(
      llamaLike(cfg, { qkvBias: true }),
      E.chain((c) => qwenSliding(cfg, c)),
      E.chain(validated)
    )
}
