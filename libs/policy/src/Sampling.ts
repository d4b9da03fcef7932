/**
 * Drawing one token from a row of next-token logits on the host, as {@link Sampler} does:
 * temperature, top-k, top-p, with the log-probability under the distribution actually sampled
 * from; and the most likely tokens of a row with their log-probabilities (OpenAI's
 * `top_logprobs`). For code that drives a {@link Decoder} step by step (a serving engine).
 *
 * @since 0.5.0
 */
import type { Rng } from '@mtrl/core'
import { draw as drawRow, type Draw, type SampleOptions } from './internal/sample.js'

export type { Draw, SampleOptions } from './internal/sample.js'

/**
 * One draw from `logits` (`[vocab]`). `temperature: 0` is greedy and reports the model's
 * log-probability at temperature 1; otherwise the log-probability is under the tempered,
 * top-k/top-p-truncated and renormalised distribution. Deterministic for an Rng state; ties go
 * to the lower id.
 *
 * @example
 * import { Rng } from '@mtrl/core'
 * import { Sampling } from '@mtrl/policy'
 * const { token, logprob } = Sampling.draw({ temperature: 0.7, topP: 0.9 }, Rng.make(1))(Float32Array.of(0.1, 2, -1))
 *
 * @category sampling
 * @since 0.5.0
 */
export const draw =
  (options: SampleOptions, rng: Rng.Rng) =>
  (logits: Float32Array): Draw =>
    drawRow(logits, 0, logits.length, options, rng)

/**
 * One token with its log-probability.
 *
 * @category models
 * @since 0.5.0
 */
export interface Candidate {
  readonly token: number
  readonly logprob: number
}

/**
 * The `k` most likely tokens of `logits` under `log_softmax(logits / temperature)` (temperature
 * 0 reads as 1), most likely first, ties by the lower id.
 *
 * @example
 * import { Sampling } from '@mtrl/policy'
 * Sampling.top(2, 1)(Float32Array.of(0, 3, 1)) // [{ token: 1, logprob: ... }, { token: 2, logprob: ... }]
 *
 * @category sampling
 * @since 0.5.0
 */
export const top =
  (k: number, temperature: number) =>
  (logits: Float32Array): ReadonlyArray<Candidate> => {
    const scale = temperature > 0 ? 1 / temperature : 1
    let max = -Infinity
    for (const z of logits) if (z * scale > max) max = z * scale
    let sum = 0
    for (const z of logits) sum += Math.exp(z * scale - max)
    const lse = max + Math.log(sum)
    const best: Candidate[] = []
    for (let i = 0; i < logits.length && k > 0; i++) {
      const logprob = logits[i]! * scale - lse
      if (best.length === k && logprob <= best[k - 1]!.logprob) continue
      let at = best.length
      while (at > 0 && best[at - 1]!.logprob < logprob) at--
      best.splice(at, 0, { token: i, logprob })
      if (best.length > k) best.pop()
    }
    return best
  }
