/**
 * Does a policy know a command where it is needed? The expert plays held-out games; at every
 * state where its next command starts with a chosen verb (e.g. `unlock`), the policy reads the
 * same context it would read in a rollout (the recipe's system prompt and action format, the
 * expert's earlier commands and the answers) and is scored on the expert's command: the
 * probability of its first token, of the whole reply, and what it writes greedily instead.
 * `mtrl probe` prints it; docs/results.md uses it to show where a skill is lost between a base,
 * its SFT prior and RL.
 *
 * @since 0.1.0
 */
import { EnvError, Rng, type Env } from '@mtrl/core'
import { Evaluate } from '@mtrl/eval'
import { Sampler, Scoring, type Agent } from '@mtrl/policy'
import { ActionFormat, Layout } from '@mtrl/rollout'
import * as tf from '@tensorflow/tfjs'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { source as sourceOf } from './EnvConfig.js'
import type { Target } from './Evaluation.js'
import * as Model from './Model.js'
import { failed, type Failed } from './RunError.js'
import { rolloutOptions } from './internal/context.js'

/**
 * `verb`: the first word of the expert commands probed; `episodes` held-out games from the
 * `split`'s first seed; `maxTurns`: the expert's steps searched in a game.
 *
 * @category models
 */
export interface Options {
  readonly verb: string
  readonly episodes: number
  readonly split: Evaluate.Split
  readonly maxTurns: number
}

/** A state where the expert's next command starts with the verb: the game so far and that command. @category models */
export interface State {
  readonly seed: number
  readonly goal: string
  readonly text: string
  readonly steps: ReadonlyArray<{ readonly action: string; readonly observation: string }>
  readonly command: string
}

/** The policy's scores at one state. @category models */
export interface Score {
  /** p(the reply's first token), for the plain format the verb. */
  readonly first: number
  /** p(the whole reply: its tokens and the stop token). */
  readonly command: number
  /** The policy's greedy action there. */
  readonly greedy: string
}

/** The scores' means over the states, and the verbs of the greedy actions (most frequent first). @category models */
export interface Result {
  readonly verb: string
  readonly games: number
  readonly states: number
  /** States whose context did not fit the policy's. */
  readonly tooLong: number
  readonly first: number
  readonly command: number
  readonly greedyVerbs: ReadonlyArray<readonly [string, number]>
}

const verbOf = (action: string): string => action.trim().split(/\s+/)[0] ?? ''

/**
 * Plays the expert (its plan re-made at each step) on `options.episodes` held-out games and
 * keeps, per game, the first state whose next expert command starts with `options.verb`. Fails
 * for an environment without an expert.
 *
 * @category constructors
 */
export const expertStates =
  (options: Options) =>
  (source: Env.EnvSource): TE.TaskEither<Failed, ReadonlyArray<State>> =>
  async () => {
    const plan = source.expertPlan
    if (plan === undefined) return E.left(failed(`${source.name} has no expert to probe with`))
    const env = source.make()
    const states: State[] = []
    try {
      for (let i = 0; i < options.episodes; i++) {
        const seed = Evaluate.splitSeedBase[options.split] + i
        const start = await env.reset(seed)()
        if (E.isLeft(start)) return E.left(failed(EnvError.message(start.left)))
        const steps: Array<State['steps'][number]> = []
        for (let turn = 0; turn < options.maxTurns; turn++) {
          const next = plan(env)[0]
          if (next === undefined) break
          if (verbOf(next) === options.verb) {
            states.push({ seed, goal: start.right.goal, text: start.right.text, steps, command: next })
            break
          }
          const step = await env.step(next)()
          if (E.isLeft(step)) return E.left(failed(EnvError.message(step.left)))
          steps.push({ action: next, observation: step.right.observation })
          if (step.right.done) break
        }
      }
    } finally {
      await env.close()()
    }
    return E.right(states)
  }

/** The context of `state` in the rollout's layout, and the reply tokens of its command. */
const contextOf = (
  agent: Agent.Agent,
  systemPrompt: string,
  format: ActionFormat.ActionFormat,
  state: State
): { readonly context: Int32Array; readonly reply: Int32Array } => {
  const replyTokens = Layout.replyTokens(agent.template, agent.tokenizer)
  const parts = [
    agent.template.prompt(Layout.system(systemPrompt, format), Layout.firstUser(state.goal, state.text)),
    ...state.steps.flatMap((s) => [replyTokens(Layout.reply(format, s.action)), agent.template.observation(s.observation)])
  ]
  const context = new Int32Array(parts.reduce((n, p) => n + p.length, 0))
  parts.reduce((at, p) => (context.set(p, at), at + p.length), 0)
  return { context, reply: replyTokens(Layout.reply(format, state.command)) }
}

/**
 * The agent's scores at `state` in the layout of `systemPrompt` and `format`; `undefined` when
 * the context and the reply do not fit the agent's context. The greedy reply is decoded in slot 0
 * of `session` (the caller's, on the agent's policy, reset here), so one session serves every state.
 *
 * @category destructors
 */
export const score =
  (agent: Agent.Agent, systemPrompt: string, format: ActionFormat.ActionFormat, session: Sampler.SamplerSession) =>
  (state: State): Score | undefined => {
    const { context, reply } = contextOf(agent, systemPrompt, format, state)
    if (context.length + reply.length > agent.contextLength) return undefined
    const ids = [...context, ...reply]
    // logprobs[i] = log p(ids[i] | ids[..i - 1])
    const logprobs = tf.tidy(() =>
      Array.from(Scoring.tokenLogprobs(agent.policy, { entropy: false })(tf.tensor2d([ids], [1, ids.length], 'int32')).logprobs.dataSync())
    )
    const ofReply = logprobs.slice(context.length)
    session.reset(0)
    session.append([0], [context])
    const budget = Math.min(reply.length + 8, agent.contextLength - context.length)
    const [greedy] = session.generate([0], { maxNewTokens: budget, temperature: 0, stopTokens: agent.template.stopTokens, rng: Rng.make(0) })
    const tokens = Array.from(greedy!.tokens).filter((t) => !agent.template.stopTokens.includes(t))
    const parsed = ActionFormat.parse(format)(agent.tokenizer.decode(tokens))
    return { first: Math.exp(ofReply[0]!), command: Math.exp(ofReply.reduce((a, b) => a + b, 0)), greedy: parsed.action }
  }

/**
 * Probes the target's model on its recipe's first evaluation environment, in its recipe's rollout
 * layout. Everything it builds is disposed.
 *
 * @example
 * import { Probe, Recipe } from '@mtrl/recipe'
 * declare const recipe: Recipe.Resolved
 * const options = { verb: 'unlock', episodes: 100, split: 'validation' as const, maxTurns: 40 }
 * const result = await Probe.run(options)({ recipe, model: { kind: 'base', path: 'models/base' } })()
 *
 * @category destructors
 */
export const run =
  (options: Options) =>
  (target: Target): TE.TaskEither<Failed, Result> =>
  async () => {
    const env = target.recipe.eval.envs[0]
    if (env === undefined) return E.left(failed('the probe needs an environment'))
    const source = sourceOf(env)
    try {
      const states = await expertStates(options)(source)()
      if (E.isLeft(states)) return states
      const agent = await Model.pretrained(target.model)()
      if (E.isLeft(agent)) return agent
      const session = Sampler.make(agent.right.policy, { slots: 1, maxLen: agent.right.contextLength })
      try {
        const { systemPrompt, actionFormat } = rolloutOptions(source, target.recipe.rollout, undefined)
        const scores = states.right.map(score(agent.right, systemPrompt, actionFormat, session))
        const fitted = scores.filter((s): s is Score => s !== undefined)
        const mean = (f: (s: Score) => number): number => (fitted.length === 0 ? Number.NaN : fitted.reduce((a, s) => a + f(s), 0) / fitted.length)
        const verbs = new Map<string, number>()
        for (const s of fitted) verbs.set(verbOf(s.greedy), (verbs.get(verbOf(s.greedy)) ?? 0) + 1)
        return E.right({
          verb: options.verb,
          games: options.episodes,
          states: fitted.length,
          tooLong: scores.length - fitted.length,
          first: mean((s) => s.first),
          command: mean((s) => s.command),
          greedyVerbs: [...verbs].sort((a, b) => b[1] - a[1])
        })
      } finally {
        session.dispose()
        agent.right.dispose()
      }
    } finally {
      source.dispose()
    }
  }

/**
 * A result as one line: `DIR: 91 states of 100 games (0 too long for the context): p(first token)
 * 0.0274, p(command) 0.01167; greedy: examine 85, go 6`.
 *
 * @category destructors
 */
export const format = (model: string, r: Result): string =>
  `${model}: ${r.states} states of ${r.games} games (${r.tooLong} too long for the context): p(first token) ${r.first.toFixed(4)}, ` +
  `p(command) ${r.command.toFixed(5)}; greedy: ${r.greedyVerbs.map(([verb, n]) => `${verb || '(nothing)'} ${n}`).join(', ')}`
