/**
 * Episodes played by an agent written as ordinary code: for each episode slot of an iteration,
 * the agent function runs with its own base URL on the served policy (`/rollouts/<id>/v1`,
 * `@mtrl/serving` `Rollouts`), calls the model as it likes (the `openai` client it is handed,
 * the `ai` SDK, another process), and returns its reward; every call is recorded token-exact and
 * becomes training samples (`Capture.samples`: one sequence per extended conversation,
 * step-wise samples where the agent rewrote its history). The result has the shape of
 * `Rollout.run`'s, so it drops into `Trainer.Setup.play` and every estimator and trainer applies.
 *
 * @since 0.1.0
 */
import { EnvError, type Env, type Tokenizer, type Trajectory } from '@mtrl/core'
import { Rollout, RolloutMetrics } from '@mtrl/rollout'
import { Capture, type Rollouts } from '@mtrl/serving'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import OpenAI from 'openai'
import type * as Judge from './Judge.js'

/**
 * One run of the agent: the task's `seed`, the environment slot it may play (`env.reset(seed)`
 * starts it; agents with tasks of their own pick one by `seed`), its group (the runs of one
 * task) and its place in it.
 *
 * @category models
 * @since 0.1.0
 */
export interface Run {
  readonly seed: number
  readonly env: Env.Env
  readonly groupId: string
  readonly member: number
}

/**
 * The model an agent run talks to: the OpenAI base URL of its own route, the key and model name
 * to send, a ready `openai` client on them (retrying a failed connection twice), and the sampling the trainer expects: send
 * `temperature` (the trainer takes its log-prob ratios at it) and no `top_p`; `maxTokens` is the
 * stage's reply budget.
 *
 * @category models
 * @since 0.1.0
 */
export interface Llm {
  readonly baseURL: string
  readonly apiKey: string
  readonly model: string
  readonly client: OpenAI
  readonly temperature: number
  readonly maxTokens: number | undefined
  /** Where a program that cannot return its reward posts it (`{"reward": x}` or `{"rewards": [...]}`). */
  readonly rewardURL: string
}

/**
 * What the environment said of one model call's action, for rewards computed by the trainer
 * (a recipe's `reward`, e.g. dense score deltas with an invalid-action penalty): the step's
 * reward (score delta), whether the action was valid, the score and the maximum score.
 *
 * @category models
 * @since 0.1.0
 */
export interface TurnReport {
  readonly reward: number
  readonly valid?: boolean
  readonly score?: number
  readonly maxScore?: number
}

/**
 * What a run returns: its reward (one number, or one per model call in call order), optionally
 * whether it won (default: a reward > 0); or a report per model call (`turns`) and whether it
 * won, for rewards the trainer computes from them; `undefined` to use the reward it posted to
 * `/rollouts/<id>/reward` (an agent in another process).
 *
 * @category models
 * @since 0.1.0
 */
export type Outcome =
  | number
  | ReadonlyArray<number>
  | { readonly reward: number | ReadonlyArray<number>; readonly won?: boolean }
  | { readonly turns: ReadonlyArray<TurnReport>; readonly won: boolean }
  | undefined

/**
 * An agent: an ordinary async function.
 *
 * @category models
 * @since 0.1.0
 */
export type Agent = (run: Run, llm: Llm) => Promise<Outcome>

/**
 * Where the policy is served: the server's URL (no trailing slash), its runs, the model name and
 * key the agent sends; `tokenizer` decodes actions for the metrics' turn records.
 *
 * A module that holds an agent for a recipe (`{"kind": "rl", "agent": "path/to/agent.ts"}`)
 * exports it as `default` or as `agent` ({@link fromModule}).
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly url: string
  readonly rollouts: Rollouts.Rollouts
  readonly model: string
  readonly apiKey?: string
  readonly tokenizer?: Tokenizer.Tokenizer
  /** What the runs are told to sample at (`Llm.temperature`, default 1) and their reply budget. */
  readonly temperature?: number
  readonly maxTokens?: number
  /**
   * Scores each group of runs (the runs of one task) with a judge model ({@link Judge}): a run's
   * reward is then its judge score, at its last model call, whatever the agent returned (the
   * agent may return `undefined`); whether it won is still the agent's to say (default: no).
   */
  readonly judge?: Judge.Judge
}

/** The run's report per call (call order) and whether it won. */
const reportsOf = (
  outcome: Outcome,
  posted: Rollouts.Reward | undefined,
  calls: number
): E.Either<string, { readonly perCall: ReadonlyArray<TurnReport>; readonly won: boolean }> => {
  if (typeof outcome === 'object' && outcome !== null && 'turns' in outcome) {
    if (outcome.turns.length !== calls) return E.left(`the agent reported ${outcome.turns.length} turns for ${calls} model calls (one per call, in call order)`)
    return E.right({ perCall: outcome.turns, won: outcome.won })
  }
  const given = outcome ?? (posted === undefined ? undefined : 'reward' in posted ? posted.reward : posted.rewards)
  if (given === undefined) return E.left('the agent returned no reward and posted none')
  const value =
    typeof given === 'object' && !Array.isArray(given)
      ? (given as { reward: number | ReadonlyArray<number> }).reward
      : (given as number | ReadonlyArray<number>)
  const won = typeof given === 'object' && !Array.isArray(given) ? (given as { won?: boolean }).won : undefined
  const report = (reward: number): TurnReport => ({ reward })
  if (typeof value === 'number')
    return E.right({ perCall: Array.from({ length: calls }, (_, i) => report(i === calls - 1 ? value : 0)), won: won ?? value > 0 })
  if (value.length !== calls) return E.left(`the agent returned ${value.length} rewards for ${calls} model calls (one per call, in call order)`)
  return E.right({ perCall: value.map(report), won: won ?? value.reduce((a, b) => a + b, 0) > 0 })
}

/** A run's reports per call and whether it won. */
interface Reports {
  readonly perCall: ReadonlyArray<TurnReport>
  readonly won: boolean
}

/** One run, played: its calls and the reports its outcome gave (or why it gave none). */
interface Played {
  readonly run: Run
  readonly slot: number
  readonly id: string
  readonly calls: ReadonlyArray<Capture.Call>
  readonly reports: E.Either<string, Reports>
}

const failure =
  (run: Run, id: string) =>
  (reason: string): E.Either<EnvError.EnvError, never> =>
    E.left(EnvError.stepFailed(run.env.spec.name, `agent run ${id} (seed ${run.seed})`, reason))

/** Each run's reports with its reward replaced by its group's judge score (at its last call). */
const judgedReports = async (judge: Judge.Judge, played: ReadonlyArray<Played>): Promise<E.Either<EnvError.EnvError, ReadonlyArray<Reports>>> => {
  const groups = new Map<string, number[]>()
  played.forEach((p, i) => groups.set(p.run.groupId, [...(groups.get(p.run.groupId) ?? []), i]))
  const scores = new Array<number>(played.length).fill(0)
  for (const members of groups.values()) {
    const transcripts = members.map((i) => played[i]!.calls[played[i]!.calls.length - 1]!.transcript ?? [])
    const judged = await judge(transcripts)
    const first = played[members[0]!]!
    if (E.isLeft(judged)) return failure(first.run, first.id)(`judging the group ${first.run.groupId}: ${judged.left}`)
    members.forEach((i, k) => (scores[i] = judged.right[k]!))
  }
  return E.right(
    played.map((p, i) => {
      const own = E.isRight(p.reports) ? p.reports.right : { perCall: p.calls.map((): TurnReport => ({ reward: 0 })), won: false }
      return { perCall: own.perCall.map((r, c) => ({ ...r, reward: c === own.perCall.length - 1 ? scores[i]! : 0 })), won: own.won }
    })
  )
}

/** One run's episode: its samples in the order they ended, the rewards of their turns in that order. */
const episodeOf = (
  run: Run,
  slot: number,
  calls: ReadonlyArray<Capture.Call>,
  perCall: ReadonlyArray<TurnReport>,
  won: boolean,
  decode: (ids: Int32Array) => string
): Rollout.Episode => {
  const samples = [...Capture.samples(calls)].sort((a, b) => a.callIndices[a.callIndices.length - 1]! - b.callIndices[b.callIndices.length - 1]!)
  const trajectoryOf = (sample: Capture.Sample): Trajectory.Trajectory => {
    const turns = sample.callIndices.map((c) => {
      const r = perCall[c]!
      return { action: decode(calls[c]!.completion), reward: r.reward, valid: r.valid ?? true, parsed: true, score: r.score ?? 0, maxScore: r.maxScore ?? 0 }
    })
    return {
      env: run.env.spec.name,
      seed: run.seed,
      groupId: run.groupId,
      segments: sample.segments,
      turns,
      turnRewards: turns.map((t) => t.reward),
      won,
      truncated: false
    }
  }
  const trajectories = samples.map(trajectoryOf)
  const last = trajectories[trajectories.length - 1]!
  const turns = trajectories.flatMap((t) => t.turns)
  return { trajectory: { ...last, turns, turnRewards: turns.map((t) => t.reward) }, samples: trajectories, slot, index: 0, ending: 'done' }
}

/**
 * The episodes of `input` played by `agent`, all runs at once (see the module comment). An agent
 * that throws, makes no model call, or gives no reward fails the iteration with that reason.
 *
 * @example
 * import { Play } from '@mtrl/agent-rl'
 * declare const options: Play.Options
 * const play = Play.play(async (run, llm) => {
 *   const start = await run.env.reset(run.seed)()
 *   // ... llm.client.chat.completions.create({ model: llm.model, messages }) ...
 *   return 1
 * }, options)
 * // Trainer.make({ ...setup, play })
 *
 * @category constructors
 * @since 0.1.0
 */
export const play =
  (agent: Agent, options: Options) =>
  (input: Rollout.Input): TE.TaskEither<EnvError.EnvError, Rollout.Result> =>
  async () => {
    const started = performance.now()
    const apiKey = options.apiKey ?? 'none'
    const decode = (ids: Int32Array): string => options.tokenizer?.decode(ids) ?? ''
    const runOne = async (env: Env.Env, slot: number): Promise<E.Either<EnvError.EnvError, Played>> => {
      const seed = Rollout.seedOf(input.seeds, Math.floor(slot / input.groupSize), 0)
      const run: Run = { seed, env, groupId: `${env.spec.name}:${seed}`, member: slot % input.groupSize }
      const rollout = options.rollouts.open()
      const baseURL = `${options.url}${rollout.path}`
      const fail = failure(run, rollout.id)
      try {
        const llm: Llm = {
          baseURL,
          apiKey,
          model: options.model,
          client: new OpenAI({ baseURL, apiKey, maxRetries: 2 }),
          temperature: options.temperature ?? 1,
          maxTokens: options.maxTokens,
          rewardURL: `${options.url}/rollouts/${rollout.id}/reward`
        }
        const outcome = await agent(run, llm)
        const calls = rollout.calls()
        if (calls.length === 0) return fail('the agent made no model call')
        const reports = reportsOf(outcome, rollout.reward(), calls.length)
        if (E.isLeft(reports) && options.judge === undefined) return fail(reports.left)
        return E.right({ run, slot, id: rollout.id, calls, reports })
      } catch (error) {
        return fail(`the agent threw: ${error instanceof Error ? error.message : String(error)}`)
      } finally {
        options.rollouts.close(rollout.id)
      }
    }
    const results = await Promise.all(input.envs.map(runOne))
    const failed = results.find(E.isLeft)
    if (failed !== undefined) return failed
    const played = results.map((r) => (r as E.Right<Played>).right)
    const judged = options.judge === undefined ? E.right(played.map((p) => (p.reports as E.Right<Reports>).right)) : await judgedReports(options.judge, played)
    if (E.isLeft(judged)) return judged
    const done = played.map((p, i) => ({ episode: episodeOf(p.run, p.slot, p.calls, judged.right[i]!.perCall, judged.right[i]!.won, decode), calls: p.calls }))
    const calls = done.flatMap((d) => d.calls)
    const counters: RolloutMetrics.Counters = {
      generatedTokens: calls.reduce((n, c) => n + c.completion.length, 0),
      contextTokens: calls.reduce((n, c) => n + c.prompt.length + c.completion.length, 0),
      cutOff: 0,
      hackingPairs: 0,
      pairs: 0,
      seconds: (performance.now() - started) / 1000
    }
    const episodes = done.map((d) => d.episode)
    return E.right({
      episodes,
      metrics: RolloutMetrics.summarize(
        episodes.map((e) => e.trajectory),
        counters
      )
    })
  }

/**
 * Re-encoded assistant messages over an iteration's calls (drift: replies the agent changed
 * before sending them back, or a template that renders text), for the run's metrics.
 *
 * @category destructors
 * @since 0.1.0
 */
export const drift = (calls: ReadonlyArray<Capture.Call>): number => calls.reduce((n, c) => n + c.reencoded, 0)

/**
 * The agent a module exports (as `default` or `agent`), or why there is none.
 *
 * @example
 * import { Play } from '@mtrl/agent-rl'
 * const agent = await Play.fromModule('examples/textworld-agent.ts')
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromModule = async (path: string): Promise<E.Either<string, Agent>> => {
  let module: Record<string, unknown>
  try {
    module = (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>
  } catch (error) {
    return E.left(`cannot load the agent module ${path}: ${error instanceof Error ? error.message : String(error)}`)
  }
  const agent = module['default'] ?? module['agent']
  return typeof agent === 'function' ? E.right(agent as Agent) : E.left(`${path} exports no agent function (as default or as "agent")`)
}
