/**
 * Trajectories as SFT data: JSONL in the OpenAI chat format, one conversation per line,
 * `{"messages": [{"role", "content"}, ...], "env", "seed", "won", ...}`. The messages are a
 * system prompt with the action format, the observations (user) and the actions (assistant);
 * `@mtrl/trainer-sft`'s `ExpertData.fromChatJsonl` reads them, and so do most SFT trainers.
 *
 * `collect` plays episodes with any agent (a `ChatPolicy`, an expert) and writes the lines.
 *
 * @since 0.1.0
 */
import { Chat, type Env } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import type { TaskEither } from 'fp-ts/lib/TaskEither.js'
import * as t from 'io-ts'
import { open } from 'node:fs/promises'
import * as ChatPolicy from './ChatPolicy.js'
import * as Episode from './Episode.js'
import * as Expert from './Expert.js'

/**
 * One line. `reward` is the episode's summed reward; `score` / `maxScore` the game's final score.
 * Extra metadata (`meta` of {@link collect}) is kept at the top level.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Record = t.intersection([
  t.type({
    messages: t.readonlyArray(Chat.Message),
    env: t.string,
    seed: t.number,
    won: t.boolean,
    truncated: t.boolean,
    turns: t.number,
    reward: t.number
  }),
  t.partial({ score: t.number, maxScore: t.number })
])
/** @category models @since 0.1.0 */
export type Record = t.TypeOf<typeof Record>

/**
 * The line of an episode, with `meta` merged in (it cannot override the fields above).
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromEpisode = (episode: Episode.Episode, meta: Readonly<globalThis.Record<string, unknown>> = {}): Record => {
  const last = episode.turns[episode.turns.length - 1]?.result.info ?? episode.start.info
  return {
    ...meta,
    messages: episode.messages,
    env: episode.env,
    seed: episode.seed,
    won: episode.won,
    truncated: episode.truncated,
    turns: episode.turns.length,
    reward: episode.totalReward,
    score: last.score,
    maxScore: last.maxScore
  }
}

/** One JSONL line (no newline). @category destructors @since 0.1.0 */
export const toLine = (record: Record): string => JSON.stringify(record)

/**
 * What to collect:
 * - `factory` makes the environments (one per concurrent episode), `seeds` the episodes;
 * - `agent` plays them (a `ChatPolicy`'s agent, `Expert.fromEnv(...)`, `Expert.replay(...)`);
 * - `path`: the JSONL file, overwritten unless `append`;
 * - `concurrency`: episodes at once (default 4);
 * - `keep`: which episodes to write (default all; e.g. `(e) => e.won` for rejection sampling);
 * - `meta`: extra fields for every line (model name, run id ...);
 * - `episode`: prompt and turn-budget options of `Episode.play`.
 *
 * @category models
 * @since 0.1.0
 */
export interface CollectOptions<E extends Env.Env> {
  readonly factory: () => E
  readonly seeds: ReadonlyArray<number>
  readonly agent: Episode.Agent<E>
  readonly path: string
  readonly append?: boolean
  readonly concurrency?: number
  readonly keep?: (episode: Episode.Episode) => boolean
  readonly meta?: Readonly<globalThis.Record<string, unknown>>
  readonly episode?: Episode.Options
}

/**
 * What was written. Episodes that failed are listed, not written.
 *
 * @category models
 * @since 0.1.0
 */
export interface Summary {
  readonly path: string
  readonly written: number
  readonly skipped: number
  readonly won: number
  readonly failed: ReadonlyArray<{ readonly seed: number; readonly reason: string }>
}

/** @category models @since 0.1.0 */
export type CollectError = { readonly _tag: 'WriteFailed'; readonly path: string; readonly reason: string }

/**
 * Plays every seed and writes one line per kept episode, in the order of `seeds`.
 *
 * @example
 * import { ChatLog, Expert } from '@mtrl/env-http'
 * import { Settings, TextWorld } from '@mtrl/env-textworld'
 * const summary = await ChatLog.collect({
 *   factory: () => TextWorld.make(Settings.custom(2, 3, 4)),
 *   seeds: [1, 2, 3],
 *   agent: Expert.fromEnv(TextWorld.expertAction),
 *   path: 'expert.jsonl'
 * })()
 *
 * @category constructors
 * @since 0.1.0
 */
export const collect =
  <E extends Env.Env>(options: CollectOptions<E>): TaskEither<CollectError, Summary> =>
  async () => {
    const fail = (error: unknown): E.Either<CollectError, never> =>
      E.left({ _tag: 'WriteFailed', path: options.path, reason: (error as Error).message ?? String(error) })
    let file: Awaited<ReturnType<typeof open>>
    try {
      file = await open(options.path, options.append === true ? 'a' : 'w')
    } catch (error) {
      return fail(error)
    }
    const play = Episode.play(options.episode)(options.agent)
    const results = new Array<E.Either<string, Episode.Episode> | undefined>(options.seeds.length)
    let flushed = 0
    let written = 0
    let skipped = 0
    let won = 0
    const failed: Array<{ seed: number; reason: string }> = []
    let writing = Promise.resolve()
    // Lines go out in seed order as soon as every earlier episode is done.
    const flush = (): void => {
      const lines: string[] = []
      for (; flushed < results.length && results[flushed] !== undefined; flushed++) {
        const result = results[flushed]!
        const seed = options.seeds[flushed]!
        if (E.isLeft(result)) failed.push({ seed, reason: result.left })
        else if (options.keep !== undefined && !options.keep(result.right)) skipped += 1
        else {
          lines.push(`${toLine(fromEpisode(result.right, options.meta))}\n`)
          written += 1
          if (result.right.won) won += 1
        }
      }
      if (lines.length > 0) writing = writing.then(() => file.appendFile(lines.join('')))
    }
    let next = 0
    const worker = async (): Promise<void> => {
      const env = options.factory()
      try {
        for (let i = next++; i < options.seeds.length; i = next++) {
          const played = await play(env, options.seeds[i]!)()
          results[i] = E.mapLeft(Episode.message)(played)
          flush()
        }
      } finally {
        await env.close()()
      }
    }
    try {
      const workers = Math.max(1, Math.min(options.concurrency ?? 4, options.seeds.length))
      await Promise.all(Array.from({ length: workers }, worker))
      await writing
      await file.close()
    } catch (error) {
      await file.close().catch(() => undefined)
      return fail(error)
    }
    return E.right({ path: options.path, written, skipped, won, failed })
  }

/**
 * Who plays the episodes a log records (`mtrl collect`, whose flags the errors name): the model
 * behind an OpenAI-compatible endpoint when `chat.baseUrl` is given (then `chat.model` is
 * required), else the source's expert (`policy`, when given, must be `expert`).
 *
 * @example
 * import { ChatLog } from '@mtrl/env-http'
 * declare const source: import('@mtrl/core').Env.EnvSource
 * ChatLog.agentOf(source, { chat: { baseUrl: 'http://127.0.0.1:8000/v1', model: 'qwen' } })
 * // Right(the model's agent); without chat: the expert's, or Left('... has no expert: record with --base-url')
 *
 * @category constructors
 * @since 0.2.0
 */
export const agentOf = (
  source: Env.EnvSource,
  options: {
    readonly policy?: string | undefined
    readonly chat?: Omit<ChatPolicy.Options, 'model' | 'baseUrl'> & { readonly baseUrl?: string | undefined; readonly model?: string | undefined }
  }
): E.Either<string, Episode.Agent> => {
  const { baseUrl, model, ...chat } = options.chat ?? {}
  if (baseUrl !== undefined)
    return model === undefined ? E.left('--model is required with --base-url') : E.right(ChatPolicy.make({ ...chat, baseUrl, model }).agent)
  const { policy } = options
  if (policy !== undefined && policy !== 'expert') return E.left(`--policy: expected "expert" (or use --base-url), got "${policy}"`)
  const plan = source.expertPlan
  if (plan === undefined) return E.left(`${source.name} has no expert: record with --base-url`)
  return E.right(Expert.fromEnv(async (env: Env.Env) => plan(env)[0] ?? 'look'))
}
