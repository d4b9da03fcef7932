/**
 * Continuous batching over a KV-cached {@link Decoder}: every submitted sequence decodes in a
 * slot of one shared decoder, one forward call per step for all of them. A sequence that arrives
 * while others decode joins at the next step (its prompt prefilled in chunks beside their decode
 * rows); a finished one frees its slot at once. A prefix cache keeps finished sequences in their
 * slots: a prompt that extends one (the next turn of a conversation: prompt, completion, new
 * messages) re-encodes only its new tokens, and prompts that share a prefix with a sequence
 * still prefilling wait a step to copy it instead of computing it twice (n > 1, a group of
 * agents on one task). The scheduling of vLLM and SGLang, on mtrl's host-side decoder.
 *
 * Each sequence draws from its own random stream with its own sampling options, and a row's
 * logits never depend on the other rows of a step, so a greedy sequence decodes to the same
 * tokens whatever else is in the batch.
 *
 * @since 0.1.0
 */
import type { Rng } from '@mtrl/core'
import { Decoder, Sampling, type Policy } from '@mtrl/policy'
import * as Slots from './internal/slots.js'

/**
 * - `slots`: sequences decoded at once (more wait in a queue); default 32;
 * - `maxLen`: longest sequence (prompt + completion), at most the model's context;
 * - `prefillChunk`: prompt tokens prefilled per step over all sequences (default 512), so a
 *   long prompt does not stall the others' decoding;
 * - `prefixCache`: reuse cached prefixes (default true; false encodes every prompt whole, to
 *   measure what the cache saves).
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly slots?: number
  readonly maxLen: number
  readonly prefillChunk?: number
  readonly prefixCache?: boolean
}

/**
 * One sampled token: its id, log-prob under the distribution sampled from (see
 * `Sampling.draw`) and, when asked for, the most likely tokens.
 *
 * @category models
 * @since 0.1.0
 */
export interface Token {
  readonly id: number
  readonly logprob: number
  readonly top: ReadonlyArray<Sampling.Candidate>
}

/**
 * A sequence to complete. `onToken` sees each token as it is sampled and returns `true` to end
 * the sequence there (a stop string); `signal` aborts it (a client gone).
 *
 * @category models
 * @since 0.1.0
 */
export interface Sequence {
  readonly prompt: Int32Array
  readonly maxTokens: number
  readonly sampling: Sampling.SampleOptions
  readonly stopTokens: ReadonlyArray<number>
  readonly rng: Rng.Rng
  /** How many most likely tokens to report per step (0: none). */
  readonly topLogprobs?: number
  readonly onToken?: (token: Token) => boolean
  readonly signal?: AbortSignal
}

/**
 * Why a sequence ended: a stop token or `onToken` (`stop`), `maxTokens` (`length`), its signal
 * (`aborted`).
 *
 * @category models
 * @since 0.1.0
 */
export type Finish = 'stop' | 'length' | 'aborted'

/**
 * A completed sequence: the sampled tokens (the stop token included), their log-probs and top
 * candidates, why it ended, and how many prompt tokens came from the prefix cache.
 *
 * @category models
 * @since 0.1.0
 */
export interface Completion {
  readonly tokens: Int32Array
  readonly logprobs: Float32Array
  readonly top: ReadonlyArray<ReadonlyArray<Sampling.Candidate>>
  readonly finish: Finish
  readonly cachedTokens: number
}

/**
 * Counters since the engine started.
 *
 * @category models
 * @since 0.1.0
 */
export interface Stats {
  readonly steps: number
  readonly running: number
  readonly waiting: number
  readonly completed: number
  readonly promptTokens: number
  /** Prompt tokens taken from the prefix cache instead of being encoded. */
  readonly cachedTokens: number
  readonly generatedTokens: number
}

/**
 * @category models
 * @since 0.1.0
 */
export interface Engine {
  readonly slots: number
  readonly maxLen: number
  /** Completes the sequence; rejects only on a broken invariant (a bad token id, a prompt longer than `maxLen`). */
  readonly submit: (sequence: Sequence) => Promise<Completion>
  readonly stats: () => Stats
  /** Waits for every sequence submitted so far, then frees the decoder. */
  readonly close: () => Promise<void>
}

interface Running {
  readonly id: number
  readonly sequence: Sequence
  readonly resolve: (completion: Completion) => void
  readonly reject: (error: unknown) => void
  slot: number
  cached: number
  /** Prompt tokens in the cache so far. */
  fed: number
  pending: Float32Array | undefined
  readonly tokens: number[]
  readonly logprobs: number[]
  readonly top: Array<ReadonlyArray<Sampling.Candidate>>
}

const nextTick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/**
 * An engine decoding with `policy` (read, not owned: it may be trained between steps; the
 * decoder picks up new weights).
 *
 * @example
 * import { Rng } from '@mtrl/core'
 * import { Engine } from '@mtrl/serving'
 * declare const policy: import('@mtrl/policy').Policy.Policy
 * const engine = Engine.make(policy, { maxLen: 512 })
 * const done = await engine.submit({ prompt: Int32Array.of(1, 2, 3), maxTokens: 16, sampling: { temperature: 0 }, stopTokens: [2], rng: Rng.make(0) })
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (policy: Policy.Policy, options: Options): Engine => {
  const decoder = Decoder.make(policy, { slots: options.slots ?? 32, maxLen: options.maxLen })
  const slots = Slots.make(decoder, options.prefixCache ?? true)
  const prefillChunk = options.prefillChunk ?? 512
  const waiting: Running[] = []
  const running = new Map<number, Running>()
  const counts = { steps: 0, completed: 0, promptTokens: 0, cachedTokens: 0, generatedTokens: 0 }
  let nextId = 0
  let loop: Promise<void> | undefined
  let closed = false

  const finish = (r: Running, finish: Finish): void => {
    running.delete(r.id)
    slots.park(r.slot)
    counts.completed++
    r.resolve({ tokens: Int32Array.from(r.tokens), logprobs: Float32Array.from(r.logprobs), top: r.top, finish, cachedTokens: r.cached })
  }

  const intended = (slot: number): Int32Array | undefined => {
    for (const r of running.values()) if (r.slot === slot && r.fed < r.sequence.prompt.length) return r.sequence.prompt
    return undefined
  }

  /** Moves waiting sequences into slots, in order; one that would rather copy a prefix still being prefilled waits a step. */
  const admit = (): void => {
    for (let i = 0; i < waiting.length;) {
      const r = waiting[i]!
      const placement = slots.plan(r.sequence.prompt, intended)
      if (placement === undefined) return
      if (placement.waitFor !== undefined) {
        i++
        continue
      }
      slots.take(placement, r.id)
      r.slot = placement.slot
      r.cached = placement.cached
      r.fed = placement.cached
      counts.promptTokens += r.sequence.prompt.length
      counts.cachedTokens += placement.cached
      waiting.splice(i, 1)
      running.set(r.id, r)
    }
  }

  /** Draws each decoding sequence's next token; the feeds that put them in the cache. */
  const decodeRows = (): Decoder.Feed[] => {
    const feeds: Decoder.Feed[] = []
    for (const r of [...running.values()]) {
      if (r.pending === undefined) continue
      const s = r.sequence
      const { token, logprob } = Sampling.draw(s.sampling, s.rng)(r.pending)
      const top = (s.topLogprobs ?? 0) > 0 ? Sampling.top(s.topLogprobs!, s.sampling.temperature)(r.pending) : []
      r.tokens.push(token)
      r.logprobs.push(logprob)
      r.top.push(top)
      r.pending = undefined
      counts.generatedTokens++
      const stopped = s.stopTokens.includes(token) || s.onToken?.({ id: token, logprob, top }) === true
      // the token enters the cache even when it ends the sequence: a later turn extends it
      if (decoder.length(r.slot) < decoder.maxLen) feeds.push({ slot: r.slot, tokens: [token] })
      if (stopped) finish(r, 'stop')
      else if (r.tokens.length >= s.maxTokens || decoder.length(r.slot) + 1 >= decoder.maxLen) finish(r, 'length')
    }
    return feeds
  }

  /** The next chunks of prompts still prefilling, within the step's budget. */
  const prefillRows = (): Array<Decoder.Feed & { readonly r: Running }> => {
    let budget = prefillChunk
    const feeds: Array<Decoder.Feed & { readonly r: Running }> = []
    for (const r of running.values()) {
      const left = r.sequence.prompt.length - r.fed
      if (left === 0 || budget === 0) continue
      const n = Math.min(left, budget)
      budget -= n
      feeds.push({ slot: r.slot, tokens: r.sequence.prompt.subarray(r.fed, r.fed + n), r })
      r.fed += n
    }
    return feeds
  }

  const step = (): void => {
    for (const r of [...running.values()]) if (r.sequence.signal?.aborted === true) finish(r, 'aborted')
    for (let i = waiting.length - 1; i >= 0; i--)
      if (waiting[i]!.sequence.signal?.aborted === true) {
        const [r] = waiting.splice(i, 1)
        r!.resolve({ tokens: new Int32Array(0), logprobs: new Float32Array(0), top: [], finish: 'aborted', cachedTokens: 0 })
      }
    admit()
    const decoded = decodeRows()
    const prefill = prefillRows()
    const feeds = [...decoded, ...prefill.map(({ slot, tokens }) => ({ slot, tokens }))]
    if (feeds.length === 0) return
    counts.steps++
    const logits = decoder.feed(feeds)
    const bySlot = new Map(feeds.map((f, i) => [f.slot, logits[i]!]))
    for (const r of running.values()) if (r.fed === r.sequence.prompt.length && bySlot.has(r.slot)) r.pending = bySlot.get(r.slot)
  }

  const run = async (): Promise<void> => {
    while (running.size > 0 || waiting.length > 0) {
      try {
        step()
      } catch (error) {
        // a broken invariant: fail what is in flight, keep serving the rest
        for (const r of [...running.values()]) {
          running.delete(r.id)
          slots.free(r.slot)
          r.reject(error)
        }
      }
      await nextTick()
    }
    loop = undefined
  }

  const submit = (sequence: Sequence): Promise<Completion> =>
    new Promise((resolve, reject) => {
      if (closed) return reject(new Error('Engine.submit: the engine is closed'))
      const n = sequence.prompt.length
      if (n === 0 || n + 1 > decoder.maxLen) return reject(new Error(`Engine.submit: a prompt of ${n} tokens; it must hold 1 to ${decoder.maxLen - 1}`))
      if (!(sequence.maxTokens >= 1)) return reject(new Error(`Engine.submit: maxTokens must be >= 1, got ${sequence.maxTokens}`))
      waiting.push({ id: nextId++, sequence, resolve, reject, slot: -1, cached: 0, fed: 0, pending: undefined, tokens: [], logprobs: [], top: [] })
      loop ??= run()
    })

  return {
    slots: decoder.slots,
    maxLen: decoder.maxLen,
    submit,
    stats: () => ({ ...counts, running: running.size, waiting: waiting.length }),
    close: async () => {
      closed = true
      while (loop !== undefined) await loop
      decoder.dispose()
    }
  }
}
