/**
 * Expert demonstrations as training samples, in exactly the token layout of rollouts: a prompt
 * (system + goal and first observation, ending with the assistant header), then per turn the
 * action tokens (ending with the stop token) and the next observation. Two sources:
 *
 * - {@link replay}: play an expert's action list (e.g. an environment's expert planner) in the
 *   environment, rendering through the same {@link Layout} as `Rollout.run`;
 * - {@link play}: ask an expert for each next action from the current state, with optional
 *   detours (random admissible actions kept in the context but out of the loss), so the
 *   demonstrations also show how to recover from a wrong action (DART-style noise injection,
 *   Laskey et al. 2017);
 * - {@link fromChatJsonl}: JSONL in the OpenAI chat format, one conversation per line
 *   (`{"messages":[{"role":"system","content":...},{"role":"user",...},{"role":"assistant",...}]}`).
 *
 * Expert action segments carry no log-probs (nobody sampled them).
 *
 * @since 0.1.0
 */
import { Chat, Decode, Rng, type Env, type EnvError, type Tokenizer, type Trajectory } from '@mtrl/core'
import { Layout, type ActionFormat } from '@mtrl/rollout'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'

/**
 * What turning text into tokens needs: the chat template and the tokenizer of the policy.
 *
 * @category models
 * @since 0.1.0
 */
export interface Renderer {
  readonly template: Tokenizer.ChatTemplate
  readonly tokenizer: Tokenizer.Tokenizer
}

const actionTokens = (renderer: Renderer, text: string): Int32Array => Layout.replyTokens(renderer.template, renderer.tokenizer)(text)

/**
 * A conversation as a training sample: an optional system message, a user message, then
 * alternating assistant (action) and user (observation) messages. Trailing user messages are
 * dropped (nothing to learn after them).
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromConversation =
  (renderer: Renderer) =>
  (conversation: Chat.Conversation, name = 'chat', seed = 0): E.Either<string, Trajectory.Trajectory> => {
    const messages = conversation.messages
    let i = 0
    const system = messages[0]?.role === 'system' ? messages[i++]!.content : ''
    const first = messages[i++]
    if (first === undefined || first.role !== 'user') return E.left(`messages.${i - 1}: expected a user message first`)
    const segments: Trajectory.Segment[] = [{ kind: 'prompt', turn: 0, tokens: renderer.template.prompt(system, first.content) }]
    const turns: Trajectory.Turn[] = []
    for (; i < messages.length; i++) {
      const m = messages[i]!
      const expected = (i - (system === '' ? 1 : 2)) % 2 === 0 ? 'assistant' : 'user'
      if (m.role !== expected) return E.left(`messages.${i}: expected ${expected}, got ${m.role}`)
      if (m.role === 'assistant') {
        segments.push({ kind: 'action', turn: turns.length, tokens: actionTokens(renderer, m.content) })
        turns.push({ action: m.content, reward: 0, valid: true, parsed: true, score: 0, maxScore: 0 })
      } else if (i < messages.length - 1) segments.push({ kind: 'observation', turn: turns.length - 1, tokens: renderer.template.observation(m.content) })
    }
    if (turns.length === 0) return E.left('no assistant message')
    return E.right({ env: name, seed, groupId: `${name}:${seed}`, segments, turns, turnRewards: turns.map(() => 0), won: true, truncated: false })
  }

/**
 * Parses JSONL (one conversation per line; blank lines skipped). A bad line is reported with its
 * line number and the path of the bad field.
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromChatJsonl =
  (renderer: Renderer) =>
  (text: string): E.Either<string, ReadonlyArray<Trajectory.Trajectory>> => {
    const out: Trajectory.Trajectory[] = []
    const lines = text.split('\n')
    for (const [n, line] of lines.entries()) {
      if (line.trim() === '') continue
      let json: unknown
      try {
        json = JSON.parse(line)
      } catch (e) {
        return E.left(`line ${n + 1}: invalid JSON (${e instanceof Error ? e.message : String(e)})`)
      }
      const decoded = Decode.decode(`line ${n + 1}`, Chat.Conversation)(json)
      if (E.isLeft(decoded)) return E.left(Decode.formatError(decoded.left))
      const sample = fromConversation(renderer)(decoded.right, 'chat', out.length)
      if (E.isLeft(sample)) return E.left(`line ${n + 1}: ${sample.left}`)
      out.push(sample.right)
    }
    return E.right(out)
  }

/**
 * Options of {@link replay}: the same `systemPrompt` and `actionFormat` as the rollouts the
 * policy will do.
 *
 * @category models
 * @since 0.1.0
 */
export interface ReplayOptions {
  readonly systemPrompt: string
  readonly actionFormat: ActionFormat.ActionFormat
}

/**
 * Plays `actions` in `env` from `reset(seed)` and records the episode as rollouts would have
 * (same prompt, same observation rendering, action tokens ending with the stop token). Stops at
 * the end of the episode or of the plan.
 *
 * @category constructors
 * @since 0.1.0
 */
export const replay =
  (options: ReplayOptions, renderer: Renderer) =>
  (env: Env.Env, seed: number, actions: ReadonlyArray<string>): TE.TaskEither<EnvError.EnvError, Trajectory.Trajectory> =>
  () => {
    let next = 0
    const fromList = async (): Promise<string | undefined> => actions[next++]
    // no detours: play draws nothing from its rng
    return play({ ...options, maxTurns: actions.length, detourRate: 0, maxDetours: 0 }, renderer)(env, seed, fromList, Rng.make(0))()
  }

/**
 * Options of {@link play}: those of {@link replay}, and
 * - `maxTurns`: the episode's turn budget (detours count);
 * - `detourRate`: probability, at each turn, of a detour instead of the expert's action: a
 *   uniformly drawn admissible action other than the expert's, marked `trainable: false`;
 * - `maxDetours`: at most this many detours per episode.
 *
 * @category models
 * @since 0.1.0
 */
export interface PlayOptions extends ReplayOptions {
  readonly maxTurns: number
  readonly detourRate: number
  readonly maxDetours: number
}

/**
 * Plays an episode from `reset(seed)` where `expert` names each next action from the current
 * state (`undefined`: no plan, the episode stops), with detours drawn from `rng` (see
 * {@link PlayOptions}). After a detour the expert plans again from where the detour led, so the
 * next trainable action is the recovery. With `detourRate` 0 it records the same episode as
 * {@link replay} of the expert's plan.
 *
 * @category constructors
 * @since 0.1.0
 */
export const play =
  (options: PlayOptions, renderer: Renderer) =>
  (env: Env.Env, seed: number, expert: (env: Env.Env) => Promise<string | undefined>, rng: Rng.Rng): TE.TaskEither<EnvError.EnvError, Trajectory.Trajectory> =>
  async () => {
    const start = await env.reset(seed)()
    if (E.isLeft(start)) return start
    const { goal, text } = start.right
    const segments: Trajectory.Segment[] = [
      { kind: 'prompt', turn: 0, tokens: renderer.template.prompt(Layout.system(options.systemPrompt, options.actionFormat), Layout.firstUser(goal, text)) }
    ]
    const turns: Trajectory.Turn[] = []
    let won = false
    let done = false
    let detours = 0
    let admissible: ReadonlyArray<string> = start.right.info.admissibleActions ?? []
    let pendingObservation: Int32Array = new Int32Array(0)
    while (!done && turns.length < options.maxTurns) {
      const next = await expert(env)
      if (next === undefined) break
      let action = next
      let trainable = true
      if (options.detourRate > 0 && detours < options.maxDetours && rng.next() < options.detourRate) {
        const others = admissible.filter((a) => a !== next)
        if (others.length > 0) {
          action = others[rng.int(others.length)]!
          trainable = false
          detours += 1
        }
      }
      if (turns.length > 0) segments.push({ kind: 'observation', turn: turns.length - 1, tokens: pendingObservation })
      const tokens = actionTokens(renderer, Layout.reply(options.actionFormat, action))
      segments.push(trainable ? { kind: 'action', turn: turns.length, tokens } : { kind: 'action', turn: turns.length, tokens, trainable: false })
      const result = await env.step(action)()
      if (E.isLeft(result)) return result
      const r = result.right
      turns.push({ action, reward: r.reward, valid: r.info.valid, parsed: true, score: r.info.score, maxScore: r.info.maxScore })
      pendingObservation = renderer.template.observation(r.observation)
      admissible = r.info.admissibleActions ?? []
      done = r.done
      won = r.won
    }
    return E.right({
      env: env.spec.name,
      seed,
      groupId: `${env.spec.name}:${seed}`,
      segments,
      turns,
      turnRewards: turns.map((u) => u.reward),
      won,
      truncated: !done
    })
  }
