/**
 * Evaluating a served model (an OpenAI-compatible chat API: vLLM, SGLang, Ollama, llama.cpp,
 * `mtrl serve-policy`) on held-out seeds of one environment: the same summary as a local
 * evaluation (`Evaluation`), its episodes played through chat messages (`@mtrl/env-http`
 * `ChatPolicy`, `Episode`). A served model has no checkpoint to hash, so its test looks are
 * recorded in the test-seed ledger, never refused (decision 0018).
 *
 * @since 0.7.0
 */
import { Summary, Evaluate } from '@mtrl/eval'
import { ChatPolicy, Episode } from '@mtrl/env-http'
import { Ledger } from '@mtrl/experiment'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { source, type EnvConfig } from './EnvConfig.js'
import { failed, type Failed } from './RunError.js'

/** @category models */
export interface Options {
  /** The API's base URL, e.g. `http://127.0.0.1:8000/v1`. */
  readonly baseUrl: string
  readonly model: string
  readonly temperature?: number
  /** Requests in flight at once (default 4). */
  readonly concurrency?: number
  /** Episodes, one per seed from `seedBase` (defaults: `Evaluate.defaultSettings`). */
  readonly episodes?: number
  readonly seedBase?: number
  /** The test-seed ledger to record test looks in; none: nothing recorded. */
  readonly ledger?: string
  /** What people should know: before the work starts (an SWE sandbox), and the ledger's notes after. */
  readonly note?: (text: string) => void
}

/** @category models */
export interface Result {
  readonly model: string
  /** Episodes played to the end, and those an error ended (a dropped connection, a bad answer). */
  readonly played: number
  readonly failed: number
  readonly results: ReadonlyArray<Summary.Summary>
}

/**
 * Plays `env`'s held-out seeds with the served model; the summary counts the episodes played to
 * the end (`failed` says how many an error ended).
 *
 * @category evaluation
 */
export const run =
  (options: Options) =>
  (env: EnvConfig): TE.TaskEither<Failed, Result> =>
  async () => {
    const { baseUrl, model, temperature = 0, concurrency = 4, note = () => undefined } = options
    const { episodes = Evaluate.defaultSettings.episodes, seedBase = Evaluate.defaultSettings.seedBase } = options
    const h = source(env, note)
    try {
      const policy = ChatPolicy.make({ baseUrl, model, temperature, concurrency })
      const seeds = Array.from({ length: episodes }, (_, i) => seedBase + i)
      const { played, failed: lost } = await Episode.playSeeds({ maxTurns: h.maxTurns })(policy.agent)(h, seeds)()
      const seedsOf = { split: Evaluate.resolve({ seedBase }).split, first: seedBase, count: played.length }
      const results = [{ ...Summary.summarise(h.name, played.map(Episode.outcome)), seeds: seedsOf }]
      if (options.ledger !== undefined) {
        const look = { recipe: null, recipeHash: null, seed: null, run: null, checkpoint: null, samplingSeed: 0, backend: 'remote', via: 'eval' as const }
        const phase = `mtrl eval --base-url ${baseUrl} --model ${model}`
        const recorded = Ledger.record(options.ledger)(Ledger.looksOf({ ...look, phase, temperature })(results))
        if (E.isLeft(recorded)) return E.left(failed(`the test-seed ledger: ${recorded.left}`))
        recorded.right.notes.forEach(note)
      }
      return E.right({ model, played: played.length, failed: lost.length, results })
    } finally {
      h.dispose()
    }
  }
