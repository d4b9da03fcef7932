/**
 * Playing one episode of an `Env` with an agent that reads the conversation so far and writes
 * the next action. The conversation is the OpenAI chat format: a system prompt with the
 * environment's action format, the observations as user messages, the agent's replies as
 * assistant messages, so a chat model plays it as is and the transcript is SFT data as is.
 *
 * @since 0.1.0
 */
import { Chat, type Env, EnvError } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import type { Task } from 'fp-ts/lib/Task.js'
import type { TaskEither } from 'fp-ts/lib/TaskEither.js'

/**
 * One turn: the agent's reply, the action taken from it, the environment's answer.
 *
 * @category models
 * @since 0.1.0
 */
export interface Turn {
  readonly reply: string
  readonly action: string
  readonly result: Env.StepResult
}

/**
 * What an agent sees before each action: the environment itself (for experts that read its
 * state), the seed, the first observation, the turns so far and the chat messages so far.
 *
 * @category models
 * @since 0.1.0
 */
export interface History<E extends Env.Env = Env.Env> {
  readonly env: E
  readonly seed: number
  readonly start: Env.Observation
  readonly turns: ReadonlyArray<Turn>
  readonly messages: ReadonlyArray<Chat.Message>
}

/**
 * Chooses the next action. Policy-agnostic: a remote chat model, a local policy, an expert.
 * A rejected promise ends the episode with `AgentFailed`.
 *
 * @category models
 * @since 0.1.0
 */
export type Agent<E extends Env.Env = Env.Env> = (history: History<E>) => Promise<string>

/**
 * A played episode. `truncated`: the turn budget ran out before the episode ended.
 *
 * @category models
 * @since 0.1.0
 */
export interface Episode {
  readonly env: string
  readonly seed: number
  readonly start: Env.Observation
  readonly turns: ReadonlyArray<Turn>
  readonly messages: ReadonlyArray<Chat.Message>
  readonly won: boolean
  readonly done: boolean
  readonly truncated: boolean
  /** Sum of the step rewards. */
  readonly totalReward: number
}

/** @category models @since 0.1.0 */
export type EpisodeError =
  EnvError.EnvError | { readonly _tag: 'AgentFailed'; readonly env: string; readonly seed: number; readonly turn: number; readonly reason: string }

/** @category destructors @since 0.1.0 */
export const message = (error: EpisodeError): string =>
  error._tag === 'AgentFailed' ? `${error.env}: the agent failed at turn ${error.turn} of seed ${error.seed}: ${error.reason}` : EnvError.message(error)

/**
 * How the conversation is written and how long an episode may run.
 *
 * - `maxTurns`: default `env.spec.maxTurns`;
 * - `systemPrompt`: default {@link defaultSystemPrompt};
 * - `renderStart` / `renderStep`: the user message for the first observation / a step;
 * - `parseAction`: the action in a reply (default {@link defaultParseAction}).
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly maxTurns?: number
  readonly systemPrompt?: (spec: Env.EnvSpec) => string
  readonly renderStart?: (start: Env.Observation) => string
  readonly renderStep?: (result: Env.StepResult) => string
  readonly parseAction?: (reply: string) => string
}

/** @category constructors @since 0.1.0 */
export const defaultSystemPrompt = (spec: Env.EnvSpec): string =>
  `You are playing ${spec.name}, a text environment. Each user message is what you observe. ` +
  `Answer with your next action only, nothing else.\n${spec.actionFormat}`

/** The goal (when the text does not already say it), then the text. @category constructors @since 0.1.0 */
export const defaultRenderStart = (start: Env.Observation): string =>
  start.goal === '' || start.text.includes(start.goal) ? start.text : `Your task: ${start.goal}\n\n${start.text}`

/**
 * The action in a reply: the text after the last `Action:` if there is one, else the first
 * non-empty line, trimmed.
 *
 * @category constructors
 * @since 0.1.0
 */
export const defaultParseAction = (reply: string): string => {
  const marked = /Action:\s*(.*)$/im.exec(
    reply
      .split('\n')
      .reverse()
      .find((line) => /Action:/i.test(line)) ?? ''
  )
  if (marked?.[1] !== undefined) return marked[1].trim()
  return (
    reply
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? ''
  )
}

/**
 * Plays one episode of `env` from `seed` with `agent`. The caller owns `env` (it is not closed).
 *
 * @example
 * import { Episode } from '@mtrl/env-http'
 * const episode = await Episode.play({ maxTurns: 10 })(async (h) => 'look')(env, 7)()
 *
 * @category constructors
 * @since 0.1.0
 */
export const play =
  (options: Options = {}) =>
  <E extends Env.Env>(agent: Agent<E>) =>
  (env: E, seed: number): TaskEither<EpisodeError, Episode> =>
  async () => {
    const started = await env.reset(seed)()
    if (E.isLeft(started)) return started
    const start = started.right
    const maxTurns = options.maxTurns ?? env.spec.maxTurns
    const messages: Chat.Message[] = [
      Chat.system((options.systemPrompt ?? defaultSystemPrompt)(env.spec)),
      Chat.user((options.renderStart ?? defaultRenderStart)(start))
    ]
    const turns: Turn[] = []
    let done = false
    while (!done && turns.length < maxTurns) {
      let reply: string
      try {
        reply = await agent({ env, seed, start, turns: turns.slice(), messages: messages.slice() })
      } catch (error) {
        return E.left({ _tag: 'AgentFailed', env: env.spec.name, seed, turn: turns.length, reason: error instanceof Error ? error.message : String(error) })
      }
      const action = (options.parseAction ?? defaultParseAction)(reply)
      const stepped = await env.step(action)()
      if (E.isLeft(stepped)) return stepped
      const result = stepped.right
      turns.push({ reply, action, result })
      messages.push(Chat.assistant(reply), Chat.user((options.renderStep ?? ((r) => r.observation))(result)))
      done = result.done
    }
    // The last observation answers no action: it is not part of the conversation to learn from.
    if (turns.length > 0) messages.pop()
    return E.right({
      env: env.spec.name,
      seed,
      start,
      turns,
      messages,
      won: turns.length > 0 && turns[turns.length - 1]!.result.won,
      done,
      truncated: !done,
      totalReward: turns.reduce((sum, turn) => sum + turn.result.reward, 0)
    })
  }

/**
 * Every seed played with `agent`, all at once, each on a fresh environment of `source` (closed
 * afterwards): the episodes played (in seed order) and the failures. Never fails as a whole, so
 * a report can say how many were lost.
 *
 * @example
 * import { Episode } from '@mtrl/env-http'
 * declare const source: import('@mtrl/core').Env.EnvSource
 * const { played, failed } = await Episode.playSeeds({ maxTurns: source.maxTurns })(async () => 'look')(source, [1, 2, 3])()
 *
 * @category constructors
 * @since 0.1.0
 */
export const playSeeds =
  (options: Options = {}) =>
  (agent: Agent) =>
  (source: Env.EnvSource, seeds: ReadonlyArray<number>): Task<{ readonly played: ReadonlyArray<Episode>; readonly failed: ReadonlyArray<EpisodeError> }> =>
  async () => {
    const results = await Promise.all(
      seeds.map(async (seed) => {
        const env = source.make()
        try {
          return await play(options)(agent)(env, seed)()
        } finally {
          await env.close()()
        }
      })
    )
    return { played: results.filter(E.isRight).map((r) => r.right), failed: results.filter(E.isLeft).map((r) => r.left) }
  }

/**
 * What an evaluation summary reads of an episode (the shape of `@mtrl/eval`'s
 * `Summary.Outcome`): the outcome, whether each action was valid, the step rewards.
 *
 * @example
 * import { Summary } from '@mtrl/eval'
 * import { Episode } from '@mtrl/env-http'
 * declare const episodes: ReadonlyArray<Episode.Episode>
 * const summary = Summary.summarise('textworld/w2-o3-q4', episodes.map(Episode.outcome))
 *
 * @category destructors
 * @since 0.1.0
 */
export const outcome = (
  episode: Episode
): { readonly won: boolean; readonly turns: ReadonlyArray<{ readonly valid: boolean }>; readonly turnRewards: ReadonlyArray<number> } => ({
  won: episode.won,
  turns: episode.turns.map((t) => ({ valid: t.result.info.valid })),
  turnRewards: episode.turns.map((t) => t.result.reward)
})
