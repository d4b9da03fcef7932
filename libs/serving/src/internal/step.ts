/**
 * One step of continuous batching: end the aborted sequences, admit waiting ones, sample the
 * next token of every sequence that has logits, add the next prompt chunks within the prefill
 * budget, and run the decoder once over all those rows.
 */
import { Sampling, type Decoder } from '@mtrl/policy'
import * as Batch from './batch.js'
import type * as Running from './running.js'

/** `logits` with the tokens `mask` does not allow set to -Infinity (in place: the row is the step's own), or `undefined` when it allows none. */
const masked = (logits: Float32Array, mask: Int32Array): Float32Array | undefined => {
  let any = false
  for (let id = 0; id < logits.length; id++)
    if (((mask[id >> 5] ?? 0) >>> (id & 31)) & 1) any = true
    else logits[id] = -Infinity
  return any ? logits : undefined
}

/** Draws each decoding sequence's next token and ends the sequences it stops; the feeds that put the tokens in the cache. */
const decodeRows = (batch: Batch.Batch): Decoder.Feed[] => {
  const { decoder } = batch
  const feeds: Decoder.Feed[] = []
  for (const r of [...batch.running.values()]) {
    if (r.pending === undefined) continue
    const s = r.sequence
    const logits = r.mask === undefined ? r.pending : masked(r.pending, r.mask)
    if (logits === undefined) {
      Batch.finish(batch, r, 'stop') // the grammar allows nothing more
      continue
    }
    const { token, logprob } = Sampling.draw(s.sampling, s.rng)(logits)
    // masked-out tokens are not candidates (their log-prob is -Infinity)
    const top = (s.topLogprobs ?? 0) > 0 ? Sampling.top(s.topLogprobs!, s.sampling.temperature)(logits).filter((c) => c.logprob > -Infinity) : []
    if (r.mask !== undefined) {
      r.masks.push(r.mask)
      r.mask = undefined
      if (s.grammar?.accept(token) !== true) {
        Batch.fail(batch, r, new Error(`Engine: the grammar refused token ${token}, which its own mask allowed`))
        continue
      }
    }
    r.tokens.push(token)
    r.logprobs.push(logprob)
    r.top.push(top)
    r.pending = undefined
    batch.counts.generatedTokens++
    const stopped = s.stopTokens.includes(token) || s.onToken?.({ id: token, logprob, top }) === true
    // the token enters the cache even when it ends the sequence: a later turn extends it
    if (decoder.length(r.slot) < decoder.maxLen) feeds.push({ slot: r.slot, tokens: [token] })
    if (stopped) Batch.finish(batch, r, 'stop')
    else if (r.tokens.length >= s.maxTokens || decoder.length(r.slot) + 1 >= decoder.maxLen) Batch.finish(batch, r, 'length')
  }
  return feeds
}

/** The next chunks of prompts still prefilling, within the step's budget (each marked fed). */
const prefillRows = (batch: Batch.Batch): Array<Decoder.Feed & { readonly r: Running.Running }> => {
  let budget = batch.prefillChunk
  const feeds: Array<Decoder.Feed & { readonly r: Running.Running }> = []
  for (const r of batch.running.values()) {
    const left = r.sequence.prompt.length - r.fed
    if (left === 0 || budget === 0) continue
    const n = Math.min(left, budget)
    budget -= n
    feeds.push({ slot: r.slot, tokens: r.sequence.prompt.subarray(r.fed, r.fed + n), r })
    r.fed += n
  }
  return feeds
}

/** Runs one step; throws on a broken invariant (a bad token id), leaving the caller to fail what is in flight. */
export const step = (batch: Batch.Batch): void => {
  Batch.endAborted(batch)
  Batch.admit(batch)
  const decoded = decodeRows(batch)
  const prefill = prefillRows(batch)
  const feeds = [...decoded, ...prefill.map(({ slot, tokens }) => ({ slot, tokens }))]
  if (feeds.length === 0) return
  batch.counts.steps++
  const logits = batch.decoder.feed(feeds)
  const bySlot = new Map(feeds.map((f, i) => [f.slot, logits[i]!]))
  // a sequence whose prompt is all in samples its next token from the logits of its last row
  for (const r of batch.running.values()) if (r.fed === r.sequence.prompt.length && bySlot.has(r.slot)) r.pending = bySlot.get(r.slot)
}
