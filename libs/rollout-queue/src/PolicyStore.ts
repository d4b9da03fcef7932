/**
 * Policy versions in Redis. The trainer publishes the model record (configuration, LoRA
 * settings, tokenizer: JSON, once per model) and each version's weights (safetensors bytes,
 * float32, Hugging Face names: what `Checkpoint` writes as `model.safetensors`); a job names
 * both keys. Workers load a version once and keep it ({@link cache}), so the weights cross the
 * network once per version per worker, not once per job.
 *
 * Keys expire (`ttlSeconds`, default one day) so an abandoned run leaves nothing behind; the
 * publisher deletes a version's weights once its iteration is over ({@link retire}).
 *
 * @since 0.1.0
 */
import { Decode, type Tokenizer } from '@mtrl/core'
import { ChatTemplate, HfTokenizer, Lora, ModelConfig, Policy, Safetensors, WordTokenizer } from '@mtrl/policy'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import * as t from 'io-ts'
import type { Redis } from 'ioredis'
import { createHash } from 'node:crypto'
import * as QueueError from './QueueError.js'
import type { PolicyRef } from './Wire.js'

/**
 * The model record: what a worker needs besides the weights.
 *
 * @category codecs
 * @since 0.1.0
 */
export const ModelRecord = t.type({
  config: ModelConfig.ModelConfig,
  lora: t.union([Lora.Options, t.null]),
  tokenizer: t.union([
    t.type({ kind: t.literal('mtrl-word'), words: t.readonlyArray(t.string) }),
    t.type({ kind: t.literal('huggingface'), json: t.unknown, config: t.unknown })
  ])
})
/** @category models @since 0.1.0 */
export type ModelRecord = t.TypeOf<typeof ModelRecord>

/**
 * Where and for how long versions are kept: keys `<prefix>:model:<sha1>` and
 * `<prefix>:weights:<version>`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly prefix: string
  readonly ttlSeconds?: number
}

/**
 * The model record of a policy. Throws (a programmer error) for a policy without a tokenizer
 * or with a tokenizer that is neither a `WordTokenizer` nor an `HfTokenizer`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const recordOf = (policy: Policy.Policy): ModelRecord => {
  const tokenizer = policy.tokenizer as Partial<WordTokenizer.WordTokenizer | HfTokenizer.HfTokenizer> | undefined
  const lora = policy.lora ?? null
  if (tokenizer?._tag === 'WordTokenizer')
    return { config: policy.config, lora, tokenizer: { kind: 'mtrl-word', words: [...(tokenizer as WordTokenizer.WordTokenizer).words] } }
  if (tokenizer?._tag === 'HfTokenizer') {
    const hf = tokenizer as HfTokenizer.HfTokenizer
    return { config: policy.config, lora, tokenizer: { kind: 'huggingface', json: hf.json, config: hf.config } }
  }
  throw new Error('PolicyStore: the policy needs a WordTokenizer or an HfTokenizer (policy.tokenizer) so workers can rebuild it')
}

const fail = (url: string) => (e: unknown) => E.left(QueueError.redisUnavailable(url, e instanceof Error ? e.message : String(e)))

const urlOf = (redis: Redis): string => `redis://${redis.options.host ?? '127.0.0.1'}:${redis.options.port ?? 6379}`

/**
 * Publishes a version: the model record (written when missing, its expiry renewed) and the
 * weights as safetensors bytes. Reads every weight once, in bulk.
 *
 * @category constructors
 * @since 0.1.0
 */
export const publish =
  (options: Options) =>
  (redis: Redis) =>
  (policy: Policy.Policy, version: string): TE.TaskEither<QueueError.QueueError, PolicyRef> =>
  async () => {
    const ttl = options.ttlSeconds ?? 86_400
    const record = JSON.stringify(ModelRecord.encode(recordOf(policy)))
    const model = `${options.prefix}:model:${createHash('sha1').update(record).digest('hex')}`
    const weights = `${options.prefix}:weights:${version}`
    const bytes = Safetensors.encode(Policy.toHost(policy.variables), { format: 'pt' })
    try {
      const renewed = await redis.expire(model, ttl)
      if (renewed === 0) await redis.set(model, record, 'EX', ttl)
      await redis.set(weights, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), 'EX', ttl)
      return E.right({ model, weights })
    } catch (e) {
      return fail(urlOf(redis))(e)
    }
  }

/**
 * Deletes a version's weights (the model record stays for the next version).
 *
 * @category destructors
 * @since 0.1.0
 */
export const retire =
  (redis: Redis) =>
  (ref: PolicyRef): TE.TaskEither<QueueError.QueueError, void> =>
  async () => {
    try {
      await redis.del(ref.weights)
      return E.right(undefined)
    } catch (e) {
      return fail(urlOf(redis))(e)
    }
  }

/**
 * A loaded version: the policy and what a rollout needs of it. `release` gives it back to the
 * cache (which disposes versions no job holds once a newer one is loaded).
 *
 * @category models
 * @since 0.1.0
 */
export interface Loaded {
  readonly policy: Policy.Policy
  readonly tokenizer: Tokenizer.Tokenizer
  readonly template: Tokenizer.ChatTemplate
  readonly release: () => void
}

/**
 * A worker's cache of versions: `get` loads a version once (later jobs of the same version
 * share it); `dispose` frees every policy.
 *
 * @category models
 * @since 0.1.0
 */
export interface Cache {
  readonly get: (ref: PolicyRef) => TE.TaskEither<QueueError.QueueError, Loaded>
  /** The weights keys loaded so far, oldest first (for tests and reports). */
  readonly loads: () => ReadonlyArray<string>
  readonly dispose: () => void
}

interface Entry {
  readonly policy: Policy.Policy
  readonly tokenizer: Tokenizer.Tokenizer
  readonly template: Tokenizer.ChatTemplate
  holders: number
}

const tokenizerOf = (record: ModelRecord): Tokenizer.Tokenizer =>
  record.tokenizer.kind === 'mtrl-word' ? WordTokenizer.fromWords(record.tokenizer.words) : HfTokenizer.fromJson(record.tokenizer.json, record.tokenizer.config)

/**
 * A policy built from a model record, with its tokenizer and chat template.
 *
 * @category models
 * @since 0.2.0
 */
export interface Built {
  readonly policy: Policy.Policy
  readonly tokenizer: Tokenizer.Tokenizer
  readonly template: Tokenizer.ChatTemplate
}

/**
 * The policy of a model record with `weights` (host arrays by tensor name, as `Policy.toHost`
 * gives them), its tokenizer (`tokenizer`, or the record's) and chat template: what a worker
 * builds from a version (the caller owns the policy).
 *
 * @category constructors
 * @since 0.2.0
 */
export const fromRecord = (
  record: ModelRecord,
  weights: Parameters<typeof Policy.fromHost>[1],
  tokenizer: Tokenizer.Tokenizer = tokenizerOf(record)
): Built => ({
  policy: Policy.fromHost(record.config, weights, { tokenizer, ...(record.lora === null ? {} : { lora: record.lora }) }),
  tokenizer,
  template: ChatTemplate.make(tokenizer)
})

/** A model record and its tokenizer, kept by model key: versions of one run share them. */
type Records = Map<string, { readonly record: ModelRecord; readonly tokenizer: Tokenizer.Tokenizer }>

/** The model record under `key` (and its tokenizer), read from Redis the first time only. */
const readModel = async (
  redis: Redis,
  records: Records,
  key: string
): Promise<E.Either<QueueError.QueueError, { readonly record: ModelRecord; readonly tokenizer: Tokenizer.Tokenizer }>> => {
  const known = records.get(key)
  if (known !== undefined) return E.right(known)
  const text = await redis.get(key)
  if (text === null) return E.left(QueueError.policyMissing(key))
  const decoded = Decode.decode(key, ModelRecord)(JSON.parse(text))
  if (E.isLeft(decoded)) return E.left(QueueError.badMessage(key, Decode.formatError(decoded.left)))
  const model = { record: decoded.right, tokenizer: tokenizerOf(decoded.right) }
  records.set(key, model)
  return E.right(model)
}

/** The weights under `key` (a safetensors file), as float32 host arrays by tensor name. */
const readWeights = async (redis: Redis, key: string): Promise<E.Either<QueueError.QueueError, Parameters<typeof Policy.fromHost>[1]>> => {
  const bytes = await redis.getBuffer(key)
  if (bytes === null) return E.left(QueueError.policyMissing(key))
  const file = Safetensors.decode(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength))
  if (E.isLeft(file)) return E.left(QueueError.badMessage(key, file.left))
  return E.right(new Map([...file.right.tensors].map(([name, entry]) => [name, { shape: entry.shape, data: Safetensors.toFloat32(entry) }])))
}

/** Lends a held entry; `release` (once, later calls do nothing) drops the hold and sweeps. */
const lend = (held: Entry, sweep: () => void): Loaded => {
  let released = false
  return {
    policy: held.policy,
    tokenizer: held.tokenizer,
    template: held.template,
    release: () => {
      if (released) return
      released = true
      held.holders -= 1
      sweep()
    }
  }
}

/**
 * A version cache reading from `redis`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const cache = (redis: Redis): Cache => {
  const records: Records = new Map()
  const entries = new Map<string, Entry | Promise<E.Either<QueueError.QueueError, Entry>>>()
  const loaded: string[] = []
  let latest = ''

  const sweep = (): void => {
    for (const [key, entry] of entries)
      if (key !== latest && !(entry instanceof Promise) && entry.holders === 0) {
        entry.policy.dispose()
        entries.delete(key)
      }
  }

  const load = async (ref: PolicyRef): Promise<E.Either<QueueError.QueueError, Entry>> => {
    try {
      const model = await readModel(redis, records, ref.model)
      if (E.isLeft(model)) return model
      const weights = await readWeights(redis, ref.weights)
      if (E.isLeft(weights)) return weights
      const built = fromRecord(model.right.record, weights.right, model.right.tokenizer)
      loaded.push(ref.weights)
      return E.right({ ...built, holders: 0 })
    } catch (e) {
      return E.left(QueueError.redisUnavailable(urlOf(redis), e instanceof Error ? e.message : String(e)))
    }
  }

  const get =
    (ref: PolicyRef): TE.TaskEither<QueueError.QueueError, Loaded> =>
    async () => {
      let entry = entries.get(ref.weights)
      if (entry === undefined) {
        const pending = load(ref)
        entries.set(ref.weights, pending)
        const result = await pending
        if (E.isLeft(result)) {
          entries.delete(ref.weights)
          return result
        }
        entries.set(ref.weights, result.right)
        entry = result.right
      } else if (entry instanceof Promise) {
        const result = await entry
        if (E.isLeft(result)) return result
        entry = result.right
      }
      const held = entry
      held.holders += 1
      latest = ref.weights
      sweep()
      return E.right(lend(held, sweep))
    }

  return {
    get,
    loads: () => loaded.slice(),
    dispose: () => {
      for (const entry of entries.values()) if (!(entry instanceof Promise)) entry.policy.dispose()
      entries.clear()
    }
  }
}
