/**
 * The Inspect panel's data: a group of episodes the agent samples on one game (the rollout of
 * training, at the run's temperature), each token with its text, whether it is in the action mask
 * (gets gradient), the sampler's log-prob, the estimator's advantage (GRPO or RLOO over the
 * group, through the trainer's own path from episodes to token rows) and, for an agent with a
 * critic, the critic's value.
 */
import { JsonEstimate } from '@mtrl/advantages'
import { EnvError, Rng, Trajectory } from '@mtrl/core'
import { Critic, Sampler, type Agent } from '@mtrl/policy'
import { EnvConfig } from '@mtrl/recipe'
import { Rollout } from '@mtrl/rollout'
import * as tf from '@tensorflow/tfjs'
import * as E from 'fp-ts/lib/Either.js'
import type { InspectedEpisode, InspectedToken, Inspection } from './protocol.js'

/** The critic's value at each token of `trajectory`, when the agent has a critic. */
const valuesOf = (agent: Agent.Agent, ids: Int32Array): Float32Array | undefined => {
  if (agent.critic === undefined) return undefined
  const critic = agent.critic
  return tf.tidy(() => Critic.values(critic)(tf.tensor2d(ids, [1, ids.length], 'int32')).dataSync() as Float32Array)
}

const tokensOf = (agent: Agent.Agent, trajectory: Trajectory.Trajectory, advantages: ReadonlyArray<number>): ReadonlyArray<InspectedToken> => {
  const mask = Trajectory.actionMask(trajectory)
  const values = valuesOf(agent, Trajectory.tokens(trajectory))
  const out: InspectedToken[] = []
  for (const segment of trajectory.segments)
    segment.tokens.forEach((id, i) => {
      const t = out.length
      out.push({
        text: agent.tokenizer.decode([id]),
        kind: segment.kind,
        mask: mask[t] === 1,
        turn: segment.turn,
        ...(segment.logprobs === undefined ? {} : { logprob: segment.logprobs[i]! }),
        ...(mask[t] === 1 ? { advantage: advantages[t] ?? 0 } : {}),
        ...(values === undefined ? {} : { value: values[t]! })
      })
    })
  return out
}

/** Samples `groupSize` episodes of `config`'s game `seed` and estimates their advantages. */
export const inspect = async (
  agent: Agent.Agent,
  config: unknown,
  seed: number,
  groupSize: number,
  estimator: 'grpo' | 'rloo',
  rollout: Partial<Rollout.Options>
): Promise<E.Either<string, Inspection>> => {
  const decoded = EnvConfig.EnvConfig.decode(config)
  if (E.isLeft(decoded)) return E.left('the game: not an environment a recipe names')
  const source = EnvConfig.source(decoded.right)
  const envs = Array.from({ length: groupSize }, () => source.make())
  const session = Sampler.make(agent.policy, { slots: groupSize, maxLen: agent.contextLength })
  try {
    const options = { ...Rollout.defaultOptions, maxTurns: source.maxTurns, ...rollout }
    const generator = { session, template: agent.template, tokenizer: agent.tokenizer, contextLength: agent.contextLength }
    const played = await Rollout.run(options)(generator)({ envs, seeds: [seed], groupSize, rng: Rng.make(seed) })()
    if (E.isLeft(played)) return E.left(EnvError.message(played.left))
    const trajectories = played.right.episodes.map((e) => e.trajectory)
    const estimated = JsonEstimate.run(estimator)({ trajectories: trajectories.map((t) => Trajectory.Trajectory.encode(t)) })
    if (E.isLeft(estimated)) return E.left(estimated.left)
    const episodes: InspectedEpisode[] = trajectories.map((t, i) => ({
      seed: t.seed,
      won: t.won,
      return: t.turnRewards.reduce((a, b) => a + b, 0),
      tokens: tokensOf(agent, t, estimated.right.advantages[i] ?? []),
      turns: t.turns.map((turn) => ({ action: turn.action, reward: turn.reward, valid: turn.valid }))
    }))
    return E.right({ env: source.name, seed, estimator, episodes })
  } finally {
    session.dispose()
    await Promise.all(envs.map((env) => env.close()()))
    source.dispose()
  }
}
