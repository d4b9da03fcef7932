/**
 * A model folder served end to end: its agent loaded (`Agent.pretrained`: an mtrl checkpoint or a
 * Hugging Face folder), put on an engine ({@link Completions.model}) and behind the HTTP
 * {@link Server}; `stop` drains the requests in flight, frees the engine and the agent, and says
 * what was served. What `mtrl serve-policy` runs between its flags and its signals.
 *
 * @since 0.2.0
 */
import { Agent, type PolicyError } from '@mtrl/policy'
import * as E from 'fp-ts/lib/Either.js'
import type { TaskEither } from 'fp-ts/lib/TaskEither.js'
import { basename } from 'node:path'
import * as Completions from './Completions.js'
import type * as Engine from './Engine.js'
import * as Server from './Server.js'

/**
 * - `dir`: the model folder; `maxLen`: its context (default the model's);
 * - `name` (default `mtrl`), `slots`, `chatTemplate` (a Jinja template's text): as
 *   {@link Completions.ModelOptions};
 * - `host`, `port`, `token`, `maxRequests`, `seed`: as {@link Server.Options}.
 *
 * @category models
 * @since 0.2.0
 */
export interface Options {
  readonly dir: string
  readonly maxLen?: number
  readonly name?: string
  readonly slots?: number
  readonly chatTemplate?: string
  readonly host?: string
  readonly port?: number
  readonly token?: string
  readonly maxRequests?: number
  readonly seed?: number
}

/**
 * A model being served: `url` (the API under `${url}/v1`), `banner` (one line: folder, name,
 * chat format, context, slots, URL), and `stop`, which returns the engine's counters.
 *
 * @category models
 * @since 0.2.0
 */
export interface Serving {
  readonly url: string
  readonly model: Completions.Model
  readonly banner: string
  readonly stop: () => Promise<Engine.Stats>
}

/**
 * Why nothing is served: the folder did not load, or the address could not be bound (the
 * engine and the agent are then freed).
 *
 * @category models
 * @since 0.2.0
 */
export type ServeError = { readonly _tag: 'LoadFailed'; readonly dir: string; readonly error: PolicyError.PolicyError } | Server.ServerError

/** @category destructors @since 0.2.0 */
export const message = (error: ServeError): string =>
  error._tag === 'LoadFailed' ? `${error.dir}: ${JSON.stringify(error.error)}` : `cannot listen on ${error.host}:${error.port}: ${error.reason}`

/** One line after `stop`: completions, tokens generated, prompt tokens from the prefix cache. @category destructors @since 0.2.0 */
export const describeStats = (stats: Engine.Stats): string =>
  `stopped after ${stats.completed} completions: ${stats.generatedTokens} tokens generated, ${stats.cachedTokens} of ${stats.promptTokens} prompt tokens from the prefix cache`

/**
 * Loads `options.dir` and serves it.
 *
 * @example
 * import { Serve } from '@mtrl/serving'
 * const serving = await Serve.start({ dir: 'fixtures/hf/tiny-qwen2', port: 8000 })()
 * // Right({ url: 'http://127.0.0.1:8000', banner: 'serving tiny-qwen2 as "mtrl" (...)', ... })
 *
 * @category constructors
 * @since 0.2.0
 */
export const start =
  (options: Options): TaskEither<ServeError, Serving> =>
  async () => {
    const { dir, maxLen } = options
    const agent = await Agent.pretrained(dir, maxLen === undefined ? {} : { maxLen })()
    if (E.isLeft(agent)) return E.left({ _tag: 'LoadFailed', dir, error: agent.left })
    const model = Completions.model(agent.right, { name: options.name ?? 'mtrl', slots: options.slots, maxLen, chatTemplate: options.chatTemplate })
    const { host = '127.0.0.1', port, token, maxRequests, seed } = options
    const started = await Server.start({ model, host, port, token, maxRequests, seed })()
    if (E.isLeft(started)) {
      await model.close()
      agent.right.dispose()
      return started
    }
    const server = started.right
    const { format, engine } = model
    return E.right({
      url: server.url,
      model,
      banner: `serving ${basename(dir)} as "${model.name}" (${format.kind} chat format, context ${engine.maxLen}, ${engine.slots} slots) at ${server.url}/v1`,
      stop: async () => {
        await server.close()
        await model.close()
        const stats = engine.stats()
        agent.right.dispose()
        return stats
      }
    })
  }
