/**
 * mtrl checkpoints: a directory with `config.json` (format, model configuration, LoRA,
 * critic, optimizer step, caller's `extra`), `model.safetensors` (the policy, Hugging Face
 * names, adapters included), `critic.safetensors`, `optimizer.safetensors` (Adam moments) and
 * the tokenizer (`tokenizer.json`; plus `tokenizer_config.json` for Hugging Face ones). Written
 * atomically (temporary directory + rename). Round trips are bit-exact (float32 stored as F32).
 *
 * @since 0.1.0
 */
import { Decode } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import * as t from 'io-ts'
import { join } from 'node:path'
import * as Critic from './Critic.js'
import * as HfTokenizer from './HfTokenizer.js'
import { eachSafetensor, exists, loadSafetensors, readJson, writeDirAtomic } from './internal/files.js'
import { variableOf, freshScope } from './internal/weights.js'
import * as Lora from './Lora.js'
import { ModelConfig } from './ModelConfig.js'
import type { OptimizerState } from './OptimizerState.js'
import * as Policy from './Policy.js'
import { invalidConfig, message as policyMessage, type PolicyError } from './PolicyError.js'
import * as Safetensors from './Safetensors.js'
import type { Tokenizer } from './Tokenizer.js'
import * as WordTokenizer from './WordTokenizer.js'

/**
 * The `config.json` of a checkpoint.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Meta = t.intersection([
  t.type({
    format: t.literal('mtrl-policy'),
    version: t.literal(1),
    model: ModelConfig,
    lora: t.union([Lora.Options, t.null]),
    critic: t.union([t.type({ shareTrunk: t.boolean }), t.null]),
    optimizer: t.union([t.type({ step: t.number }), t.null]),
    tokenizer: t.union([t.literal('mtrl-word'), t.literal('huggingface'), t.null]),
    extra: t.unknown
  }),
  /** Named extra optimizer states (`optimizer.NAME.safetensors`), e.g. a separate critic optimizer. */
  t.partial({ optimizers: t.record(t.string, t.type({ step: t.number })) })
])
/** @category models @since 0.1.0 */
export type Meta = t.TypeOf<typeof Meta>

/**
 * Why a trainer's checkpoint (a policy checkpoint with the trainer's state beside it) could not
 * be written or continued from: `Storage`, the policy checkpoint itself failed; `Mismatch`, it
 * holds no state of this kind of run, or another run's. Both trainers' `Checkpointing` use it.
 *
 * @category models
 * @since 0.1.0
 */
export type StateError =
  { readonly _tag: 'Storage'; readonly error: PolicyError } | { readonly _tag: 'Mismatch'; readonly dir: string; readonly reason: string }

/**
 * A one-line, human-readable description of a {@link StateError}.
 *
 * @category destructors
 * @since 0.1.0
 */
export const stateMessage = (error: StateError): string => {
  switch (error._tag) {
    case 'Storage':
      return policyMessage(error.error)
    case 'Mismatch':
      return `checkpoint ${error.dir} does not fit this run: ${error.reason}`
  }
}

/**
 * What a checkpoint holds.
 *
 * @category models
 * @since 0.1.0
 */
export interface Contents {
  readonly policy: Policy.Policy
  readonly critic?: Critic.Critic
  readonly optimizerState?: OptimizerState
  /** More optimizer states by name (letters, digits, `-`, `_`), e.g. `{ critic: ... }` for a trainer with two optimizers. */
  readonly optimizerStates?: Readonly<Record<string, OptimizerState>>
  /** Anything JSON: step counters, RNG states, the recipe. */
  readonly extra?: unknown
}

const hostOf = (variables: Policy.NamedVariables): Map<string, Safetensors.Writable> => Policy.toHost(variables)

const tokenizerFiles = (tokenizer: Tokenizer | undefined): { kind: Meta['tokenizer']; files: Array<[string, string]> } => {
  if (tokenizer === undefined) return { kind: null, files: [] }
  const tagged = tokenizer as Partial<WordTokenizer.WordTokenizer | HfTokenizer.HfTokenizer>
  if (tagged._tag === 'WordTokenizer')
    return { kind: 'mtrl-word', files: [['tokenizer.json', JSON.stringify(WordTokenizer.toSaved(tagged as WordTokenizer.WordTokenizer))]] }
  if (tagged._tag === 'HfTokenizer') {
    const hf = tagged as HfTokenizer.HfTokenizer
    return {
      kind: 'huggingface',
      files: [
        ['tokenizer.json', JSON.stringify(hf.json)],
        ['tokenizer_config.json', JSON.stringify(hf.config)]
      ]
    }
  }
  throw new Error('Checkpoint.save: unknown tokenizer kind (expected a WordTokenizer or an HfTokenizer)')
}

/**
 * Saves a checkpoint atomically. Reads every weight once, in bulk.
 *
 * @category constructors
 * @since 0.1.0
 */
export const save = (dir: string, contents: Contents): TE.TaskEither<PolicyError, void> => {
  const { policy, critic, optimizerState } = contents
  const tok = tokenizerFiles(policy.tokenizer)
  const meta: Meta = {
    format: 'mtrl-policy',
    version: 1,
    model: policy.config,
    lora: policy.lora ?? null,
    critic: critic === undefined ? null : { shareTrunk: critic.shareTrunk },
    optimizer: optimizerState === undefined ? null : { step: optimizerState.step },
    tokenizer: tok.kind,
    extra: contents.extra ?? null,
    ...(contents.optimizerStates === undefined
      ? {}
      : { optimizers: Object.fromEntries(Object.entries(contents.optimizerStates).map(([name, state]) => [name, { step: state.step }])) })
  }
  const files = new Map<string, Uint8Array | string>([['config.json', JSON.stringify(meta, null, 2)]])
  files.set('model.safetensors', Safetensors.encode(hostOf(policy.variables), { format: 'pt' }))
  if (critic !== undefined) files.set('critic.safetensors', Safetensors.encode(hostOf(critic.variables), { format: 'pt' }))
  if (optimizerState !== undefined) files.set('optimizer.safetensors', Safetensors.encode(optimizerState.moments, { step: String(optimizerState.step) }))
  for (const [name, state] of Object.entries(contents.optimizerStates ?? {})) {
    if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new Error(`Checkpoint.save: optimizer state name ${JSON.stringify(name)} must match [A-Za-z0-9_-]+`)
    files.set(`optimizer.${name}.safetensors`, Safetensors.encode(state.moments, { step: String(state.step) }))
  }
  for (const [name, text] of tok.files) files.set(name, text)
  return writeDirAtomic(dir, files)
}

/**
 * Whether `dir` holds an mtrl checkpoint (a `config.json` with `format: "mtrl-policy"`).
 *
 * @category destructors
 * @since 0.1.0
 */
export const isCheckpoint = async (dir: string): Promise<boolean> => {
  const json = await readJson(join(dir, 'config.json'))()
  return json._tag === 'Right' && (json.right as { format?: unknown }).format === 'mtrl-policy'
}

const hostMap = (file: Safetensors.File): Map<string, Policy.HostTensor> =>
  new Map([...file.tensors].map(([name, entry]) => [name, { shape: entry.shape, data: Safetensors.toFloat32(entry) }]))

const loadTokenizer =
  (dir: string, kind: Meta['tokenizer']): TE.TaskEither<PolicyError, Tokenizer | undefined> =>
  async () => {
    if (kind === null) return E.right(undefined)
    const path = join(dir, 'tokenizer.json')
    const json = await readJson(path)()
    if (json._tag === 'Left') return json
    if (kind === 'mtrl-word') {
      const saved = Decode.decode(path, WordTokenizer.Saved)(json.right)
      return saved._tag === 'Left' ? E.left(invalidConfig(path, Decode.formatError(saved.left))) : E.right(WordTokenizer.fromWords(saved.right.words))
    }
    const cfgPath = join(dir, 'tokenizer_config.json')
    const cfg = (await exists(cfgPath)) ? await readJson(cfgPath)() : E.right({})
    if (cfg._tag === 'Left') return cfg
    try {
      return E.right(HfTokenizer.fromJson(json.right, cfg.right))
    } catch (e) {
      return E.left(invalidConfig(path, e instanceof Error ? e.message : String(e)))
    }
  }

/** The checkpoint's policy, each variable made as its tensor is read (the host weights are never held whole). */
const loadPolicy =
  (dir: string, m: Meta, tokenizer: Tokenizer | undefined): TE.TaskEither<PolicyError, Policy.Policy> =>
  async () => {
    let build: Policy.Builder
    try {
      build = Policy.builder(m.model, { ...(tokenizer === undefined ? {} : { tokenizer }), ...(m.lora === null ? {} : { lora: m.lora }) })
    } catch (e) {
      return E.left(invalidConfig(dir, e instanceof Error ? e.message : String(e)))
    }
    const put = (name: string, entry: Safetensors.Entry): E.Either<PolicyError, void> => {
      try {
        return E.right(build.put(name, { shape: entry.shape, data: Safetensors.toFloat32(entry) }))
      } catch (e) {
        return E.left(invalidConfig(dir, e instanceof Error ? e.message : String(e)))
      }
    }
    const read = await eachSafetensor(join(dir, 'model.safetensors'), put)()
    if (read._tag === 'Left') {
      build.abort()
      return read
    }
    try {
      return E.right(build.finish())
    } catch (e) {
      return E.left(invalidConfig(dir, e instanceof Error ? e.message : String(e)))
    }
  }

/**
 * Loads a checkpoint. The caller owns the models (`dispose`).
 *
 * @category constructors
 * @since 0.1.0
 */
export const load =
  (dir: string): TE.TaskEither<PolicyError, Contents> =>
  async () => {
    const configPath = join(dir, 'config.json')
    const json = await readJson(configPath)()
    if (json._tag === 'Left') return json
    const meta = Decode.decode(configPath, Meta)(json.right)
    if (meta._tag === 'Left') return E.left(invalidConfig(configPath, Decode.formatError(meta.left)))
    const m = meta.right
    const tokenizer = await loadTokenizer(dir, m.tokenizer)()
    if (tokenizer._tag === 'Left') return tokenizer
    const policy = await loadPolicy(dir, m, tokenizer.right)()
    if (policy._tag === 'Left') return policy
    const fail = <A>(e: A): A => {
      policy.right.dispose()
      return e
    }
    const critic = m.critic === null ? undefined : await loadSafetensors(join(dir, 'critic.safetensors'))()
    if (critic?._tag === 'Left') return fail(critic)
    const optimizer = m.optimizer === null ? undefined : await loadSafetensors(join(dir, 'optimizer.safetensors'))()
    if (optimizer?._tag === 'Left') return fail(optimizer)
    const optimizerStates: Record<string, OptimizerState> = {}
    for (const [name, { step }] of Object.entries(m.optimizers ?? {})) {
      const file = await loadSafetensors(join(dir, `optimizer.${name}.safetensors`))()
      if (file._tag === 'Left') return fail(file)
      optimizerStates[name] = { step, moments: hostMap(file.right) }
    }
    try {
      let loadedCritic: Critic.Critic | undefined
      if (critic !== undefined && m.critic !== null) {
        const scope = freshScope('critic')
        const variables = Object.fromEntries([...hostMap(critic.right)].map(([name, host]) => [name, variableOf(scope, name, host)]))
        loadedCritic = Critic.fromVariables(m.model, variables, m.critic.shareTrunk ? policy.right : undefined)
      }
      const optimizerState: OptimizerState | undefined =
        optimizer === undefined || m.optimizer === null ? undefined : { step: m.optimizer.step, moments: hostMap(optimizer.right) }
      return E.right({
        policy: policy.right,
        ...(loadedCritic === undefined ? {} : { critic: loadedCritic }),
        ...(optimizerState === undefined ? {} : { optimizerState }),
        ...(m.optimizers === undefined ? {} : { optimizerStates }),
        extra: m.extra
      })
    } catch (e) {
      return fail(E.left(invalidConfig(dir, e instanceof Error ? e.message : String(e))))
    }
  }
