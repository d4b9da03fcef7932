/**
 * Held-out greedy evaluation of an agent on one environment, as a run evaluates (`Evaluate.run`
 * of @mtrl/eval: the split's seeds, temperature 0), with every episode's actions. The same
 * function runs in the page's worker and in Node, so a checkpoint can be checked to play the
 * same actions on both.
 */
import { EnvError, type Trajectory } from '@mtrl/core'
import { Evaluate } from '@mtrl/eval'
import { Sampler, type Agent } from '@mtrl/policy'
import { EnvConfig } from '@mtrl/recipe'
import { Rollout } from '@mtrl/rollout'
import * as E from 'fp-ts/lib/Either.js'
import type { Evaluation } from './protocol.js'

/** What an evaluation plays: the environment, how many seeds of which split, the run's rollout settings. */
export interface Target {
  readonly env: unknown
  readonly episodes: number
  readonly split: 'validation' | 'test'
  readonly rollout: Partial<Rollout.Options>
}

export const evaluate = async (agent: Agent.Agent, target: Target): Promise<E.Either<string, Evaluation>> => {
  const decoded = EnvConfig.EnvConfig.decode(target.env)
  if (E.isLeft(decoded)) return E.left('the evaluation: not an environment a recipe names')
  const source = EnvConfig.source(decoded.right)
  const batch = Math.min(target.episodes, 50)
  const session = Sampler.make(agent.policy, { slots: batch, maxLen: agent.contextLength })
  const played: Trajectory.Trajectory[] = []
  try {
    const settings = Evaluate.resolve({ episodes: target.episodes, split: target.split, batch })
    const rollout = { ...Rollout.defaultOptions, maxTurns: source.maxTurns, ...target.rollout }
    const generator = { session, template: agent.template, tokenizer: agent.tokenizer, contextLength: agent.contextLength }
    const summary = await Evaluate.run({ ...settings, rollout, seed: 1, onEpisode: (t) => played.push(t) })(generator)(source)()
    if (E.isLeft(summary)) return E.left(EnvError.message(summary.left))
    const episodes = played.map((t) => ({ seed: t.seed, won: t.won, actions: t.turns.map((turn) => turn.action) })).sort((a, b) => a.seed - b.seed)
    return E.right({ env: source.name, success: summary.right.successRate, episodes })
  } finally {
    session.dispose()
    source.dispose()
  }
}
