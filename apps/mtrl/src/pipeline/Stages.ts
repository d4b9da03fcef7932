/**
 * The two kinds of stage: SFT on expert demonstrations, and RL on the policy's own episodes.
 * Each takes the agent (policy, critic, tokenizer, template) and returns its metrics as data;
 * the caller logs and checkpoints.
 */
import { EnvError, Trajectory, type Env, type Rng, type Sampler } from '@mtrl/core'
import { RewardSpec } from '@mtrl/rewards'
import { Rollout, type Generator } from '@mtrl/rollout'
import { Config as TrainerConfig, Trainer } from '@mtrl/trainer-rl'
import { ExpertData, Sft } from '@mtrl/trainer-sft'
import * as E from 'fp-ts/lib/Either.js'
import { readFile } from 'node:fs/promises'
import type { RlStage, RolloutSettings, SftStage } from '../recipe/Recipe.js'
import type { Agent } from './Agent.js'

/** Training seeds are drawn below 2^31; evaluation seeds start at 3e9, so they never meet. */
export const trainSeed = (rng: Rng.Rng): number => rng.int(2147483647)

/** The rollout options of a stage: library defaults < recipe-wide < stage; maxTurns defaults to the env's budget. */
export const rolloutOptions = (source: Env.EnvSource, recipeWide: RolloutSettings | undefined, stage: RolloutSettings | undefined): Rollout.Options => ({
  ...Rollout.defaultOptions,
  maxTurns: source.maxTurns,
  ...recipeWide,
  ...stage
})

/** Expert demonstrations: the env's expert plays `episodes` training seeds, recorded as rollouts would be. */
export const expertDemos = async (
  agent: Agent,
  source: Env.EnvSource,
  options: Rollout.Options,
  episodes: number,
  rng: Rng.Rng,
  detours: { readonly rate: number; readonly max: number } = { rate: 0, max: 0 }
): Promise<ReadonlyArray<Trajectory.Trajectory>> => {
  const env = source.make()
  const renderer = { template: agent.template, tokenizer: agent.tokenizer }
  const play = ExpertData.play(
    { systemPrompt: options.systemPrompt, actionFormat: options.actionFormat, maxTurns: options.maxTurns, detourRate: detours.rate, maxDetours: detours.max },
    renderer
  )
  const expertPlan = source.expertPlan
  if (expertPlan === undefined) throw new Error(`${source.name} has no expert: SFT on it needs demonstrations from a JSONL file`)
  const nextAction = async (e: typeof env): Promise<string | undefined> => expertPlan(e)[0]
  const out: Trajectory.Trajectory[] = []
  try {
    while (out.length < episodes) {
      const seed = trainSeed(rng)
      const start = await env.reset(seed)()
      if (E.isLeft(start)) throw new Error(EnvError.message(start.left))
      if (expertPlan(env).length === 0) continue
      const demo = await play(env, seed, nextAction, rng)()
      if (E.isLeft(demo)) throw new Error(EnvError.message(demo.left))
      // a detour can make a game unwinnable (e.g. eating what the quest needs): keep wins only
      if (detours.rate > 0 && !demo.right.won) continue
      if (Trajectory.length(demo.right) <= agent.contextLength) out.push(demo.right)
    }
  } finally {
    await env.close()()
  }
  return out
}

/** The SFT options of a stage over the library defaults. */
export const sftOptions = (stage: SftStage, seed: number): Sft.Options => ({
  ...Sft.defaultOptions,
  epochs: stage.epochs ?? 3,
  batchSize: stage.batchSize ?? 16,
  learningRate: stage.learningRate ?? 1e-3,
  warmupSteps: stage.warmupSteps ?? 10,
  minLrRatio: stage.minLrRatio ?? 0.1,
  maxGradNorm: stage.maxGradNorm ?? 1,
  heldOutFraction: stage.heldOutFraction ?? 0.05,
  contextWeight: stage.contextWeight ?? 0,
  groupByLength: stage.groupByLength ?? false,
  adamBeta1: stage.adamBeta1 ?? 0.9,
  adamBeta2: stage.adamBeta2 ?? 0.999,
  emaDecay: stage.emaDecay ?? 0,
  seed
})

/** Demonstrations of an SFT stage: from the expert, or from a JSONL file in the OpenAI chat format. */
export const sftData = async (agent: Agent, source: Env.EnvSource, stage: SftStage, options: Rollout.Options, rng: Rng.Rng): Promise<ReadonlyArray<Trajectory.Trajectory>> => {
  if (stage.data !== undefined) {
    const text = await readFile(stage.data, 'utf8')
    const parsed = ExpertData.fromChatJsonl({ template: agent.template, tokenizer: agent.tokenizer })(text)
    if (E.isLeft(parsed)) throw new Error(`${stage.data}: ${parsed.left}`)
    return parsed.right
  }
  return expertDemos(agent, source, options, stage.episodes ?? 100, rng, { rate: stage.detourRate ?? 0, max: stage.maxDetours ?? 1 })
}

/** The trainer configuration of an RL stage over the library defaults. */
export const trainerConfig = (stage: RlStage, rollout: Rollout.Options, seed: number): TrainerConfig.Config => {
  const { kind: _kind, env: _env, iterations: _iterations, reward: _reward, rollout: _rollout, ...overrides } = stage
  return { ...TrainerConfig.defaultConfig, ...overrides, rollout, seed, checkpointEvery: 0 }
}

/** Makes the RL trainer of a stage (its envs, reward, and the reference policy: the KL anchor when a KL term is on, and the drift diagnostic `kl/prior` always; `play`: who plays its episodes). */
export const makeTrainer = (agent: Agent, source: Env.EnvSource, stage: RlStage, rollout: Rollout.Options, seed: number, play?: Trainer.Setup['play']): Trainer.Trainer => {
  const config = trainerConfig(stage, rollout, seed)
  const slots = config.seedsPerIteration * config.groupSize
  return Trainer.make({
    config,
    policy: agent.policy,
    ...(agent.critic === undefined ? {} : { critic: agent.critic }),
    reference: agent.reference(),
    envs: Array.from({ length: slots }, () => source.make()),
    template: agent.template,
    tokenizer: agent.tokenizer,
    contextLength: agent.contextLength,
    reward: RewardSpec.fromSpec(stage.reward ?? { kind: 'outcome' }),
    ...(play === undefined ? {} : { play })
  })
}

/** A generator (sampler session + template) for evaluation with `slots` parallel episodes. */
export const generatorFor = (agent: Agent, session: Sampler.SamplerSession): Generator.Generator => ({
  session,
  template: agent.template,
  tokenizer: agent.tokenizer,
  contextLength: agent.contextLength
})
