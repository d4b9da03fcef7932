/**
 * The computation behind `mtrl logprobs --model DIR --text "..."`: token ids of a text,
 * the model's log-probability of each next token, and its greedy continuation. Works on any
 * loadable Hugging Face folder or mtrl checkpoint; the app wires the command.
 *
 * @since 0.1.0
 */
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import * as tf from '@tensorflow/tfjs'
import { Rng } from '@mtrl/core'
import * as Pretrained from './Pretrained.js'
import type { Policy } from './Policy.js'
import { invalidConfig, type PolicyError } from './PolicyError.js'
import * as Sampler from './Sampler.js'
import * as Scoring from './Scoring.js'

/**
 * @category models
 * @since 0.1.0
 */
export interface Result {
  /** Token ids of the text (no special tokens added). */
  readonly ids: ReadonlyArray<number>
  /** `nextTokenLogprobs[i] = log p(ids[i + 1] | ids[0..i])`; length `ids.length - 1`. */
  readonly nextTokenLogprobs: ReadonlyArray<number>
  /** Greedy continuation (KV-cache decoding, temperature 0) after the text. */
  readonly greedy: ReadonlyArray<number>
}

/**
 * The numbers for a loaded policy (which must carry a tokenizer). Leaves no tensors behind.
 *
 * @category destructors
 * @since 0.1.0
 */
export const compute = (policy: Policy, text: string, greedyTokens = 12): Result => {
  if (policy.tokenizer === undefined) throw new Error('Logprobs.compute: the policy has no tokenizer')
  const ids = Array.from(policy.tokenizer.encode(text))
  if (ids.length === 0) throw new Error('Logprobs.compute: the text has no tokens')
  const nextTokenLogprobs = tf.tidy(() => {
    const lp = Scoring.tokenLogprobs(policy, { entropy: false })(tf.tensor2d([ids], [1, ids.length], 'int32')).logprobs
    return Array.from(lp.dataSync()).slice(1)
  })
  const budget = Math.min(greedyTokens, policy.config.maxLen - ids.length)
  const session = Sampler.make(policy, { slots: 1, maxLen: policy.config.maxLen })
  try {
    session.append([0], [Int32Array.from(ids)])
    const [g] = budget > 0 ? session.generate([0], { maxNewTokens: budget, temperature: 0, stopTokens: [], rng: Rng.make(0) }) : []
    return { ids, nextTokenLogprobs, greedy: g === undefined ? [] : Array.from(g.tokens) }
  } finally {
    session.dispose()
  }
}

/**
 * Loads `model` (an mtrl checkpoint if its `config.json` says so, else a Hugging Face folder),
 * computes {@link Result} for `text`, and frees the model.
 *
 * @example
 * import { Logprobs } from '@mtrl/policy'
 * const result = await Logprobs.run({ model: 'models/tiny-qwen2', text: 'go north' })()
 *
 * @category constructors
 * @since 0.1.0
 */
export const run =
  (options: { readonly model: string; readonly text: string; readonly greedyTokens?: number }): TE.TaskEither<PolicyError, Result> =>
  async () => {
    const loaded = await Pretrained.load(options.model)()
    if (loaded._tag === 'Left') return loaded
    const policy = loaded.right
    try {
      return E.right(compute(policy, options.text, options.greedyTokens ?? 12))
    } catch (e) {
      return E.left(invalidConfig(options.model, e instanceof Error ? e.message : String(e)))
    } finally {
      policy.dispose()
    }
  }
