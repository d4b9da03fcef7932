/**
 * Evaluation: the policy plays held-out seeds (greedy by default) and we report the success
 * rate with a 95% Wilson confidence interval, mean turns and return, and per task type.
 */
import { Rng, type Trajectory } from '@mtrl/core'
import { Rollout, type Generator } from '@mtrl/rollout'
import * as E from 'fp-ts/lib/Either.js'
import type { EnvHandle } from '../recipe/EnvConfig.js'

export interface Interval {
  readonly low: number
  readonly high: number
}

/** Wilson score interval for a binomial proportion (z = 1.96). */
export const wilson = (successes: number, n: number, z = 1.96): Interval => {
  if (n === 0) return { low: 0, high: 1 }
  const p = successes / n
  const denom = 1 + (z * z) / n
  const centre = (p + (z * z) / (2 * n)) / denom
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / denom
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) }
}

export interface EvalResult {
  readonly env: string
  readonly episodes: number
  readonly successRate: number
  readonly ci95: Interval
  readonly turnsMean: number
  readonly returnMean: number
  readonly invalidRate: number
  readonly perTaskType: Readonly<Record<string, { readonly episodes: number; readonly successRate: number }>>
}

export interface EvalOptions {
  readonly episodes: number
  readonly seedBase: number
  readonly temperature: number
  readonly batch: number
  readonly rollout: Rollout.Options
  readonly seed: number
  /** Called with every finished episode (e.g. to write transcripts). */
  readonly onEpisode?: (episode: Trajectory.Trajectory) => void
}

/** One episode as text: the prompt, then each turn's action and the observation that followed. */
export interface Transcript {
  readonly env: string
  readonly seed: number
  readonly won: boolean
  readonly truncated: boolean
  readonly prompt: string
  readonly turns: ReadonlyArray<{ readonly action: string; readonly valid: boolean; readonly reward: number; readonly observation: string }>
}

/** The transcript of an episode, its token segments decoded with `decode`. */
export const transcript =
  (decode: (ids: ArrayLike<number>) => string) =>
  (episode: Trajectory.Trajectory): Transcript => {
    const observations = new Map<number, string>()
    for (const s of episode.segments) if (s.kind === 'observation') observations.set(s.turn, decode(s.tokens))
    const prompt = episode.segments.filter((s) => s.kind === 'prompt').map((s) => decode(s.tokens)).join('')
    return {
      env: episode.env,
      seed: episode.seed,
      won: episode.won,
      truncated: episode.truncated,
      prompt,
      turns: episode.turns.map((turn, k) => ({ action: turn.action, valid: turn.valid, reward: episode.turnRewards[k] ?? 0, observation: observations.get(k) ?? '' }))
    }
  }

/** Summarises finished episodes. `taskTypes[i]` is episode i's task type, if the env has types. */
export const summarise = (env: string, episodes: ReadonlyArray<Trajectory.Trajectory>, taskTypes: ReadonlyArray<string | undefined>): EvalResult => {
  const n = episodes.length
  const wins = episodes.filter((t) => t.won).length
  const turns = episodes.reduce((s, t) => s + t.turns.length, 0)
  const returns = episodes.reduce((s, t) => s + t.turnRewards.reduce((a, b) => a + b, 0), 0)
  const invalid = episodes.reduce((s, t) => s + t.turns.filter((u) => !u.valid).length, 0)
  const perTaskType: Record<string, { episodes: number; successRate: number }> = {}
  const byType = new Map<string, Trajectory.Trajectory[]>()
  episodes.forEach((t, i) => {
    const type = taskTypes[i]
    if (type === undefined) return
    byType.set(type, [...(byType.get(type) ?? []), t])
  })
  for (const [type, list] of byType) perTaskType[type] = { episodes: list.length, successRate: list.filter((t) => t.won).length / list.length }
  return {
    env,
    episodes: n,
    successRate: n === 0 ? 0 : wins / n,
    ci95: wilson(wins, n),
    turnsMean: n === 0 ? 0 : turns / n,
    returnMean: n === 0 ? 0 : returns / n,
    invalidRate: turns === 0 ? 0 : invalid / turns,
    perTaskType
  }
}

/**
 * Plays `options.episodes` held-out seeds (`seedBase + i`) in batches of `options.batch`.
 * The generator's session must have at least `options.batch` slots.
 */
export const evaluate = async (generator: Generator.Generator, handle: EnvHandle, options: EvalOptions): Promise<EvalResult> => {
  const rng = Rng.make(options.seed)
  const all: Trajectory.Trajectory[] = []
  const taskTypes: Array<string | undefined> = []
  const slots = Math.min(options.batch, generator.session.slots)
  const envs = Array.from({ length: slots }, () => handle.make())
  try {
    for (let start = 0; start < options.episodes; start += slots) {
      const count = Math.min(slots, options.episodes - start)
      const seeds = Array.from({ length: count }, (_, i) => options.seedBase + start + i)
      const result = await Rollout.run({ ...options.rollout, temperature: options.temperature })(generator)({ envs: envs.slice(0, count), seeds, groupSize: 1, rng: rng.split() })()
      if (E.isLeft(result)) throw new Error(`evaluation on ${handle.name}: ${JSON.stringify(result.left)}`)
      for (const episode of result.right.episodes) {
        options.onEpisode?.(episode.trajectory)
        all.push(episode.trajectory)
        taskTypes.push(handle.taskType?.(episode.trajectory.seed))
      }
    }
  } finally {
    await Promise.all(envs.map((env) => env.close()()))
  }
  return summarise(handle.name, all, taskTypes)
}
