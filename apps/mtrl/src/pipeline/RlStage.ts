/**
 * An RL stage: the trainer of the stage (its envs, reward, reference policy when a KL term is
 * on), iterated to the stage's budget with checkpoints every `checkpointEvery` iterations; a
 * resumed stage continues from its last checkpoint with the same random streams.
 */
import { EnvError, type Env } from '@mtrl/core'
import { Progress } from '@mtrl/experiment'
import { Critic } from '@mtrl/policy'
import { RewardSpec } from '@mtrl/rewards'
import { Rollout } from '@mtrl/rollout'
import { Runner } from '@mtrl/rollout-queue'
import { Algorithm, Checkpointing, Trainer, type Metrics } from '@mtrl/trainer-rl'
import * as E from 'fp-ts/lib/Either.js'
import { failed, stopped, type CliError } from '../Command.js'
import { trainerConfig, type RlStage } from '../recipe/Recipe.js'
import * as Agent from './Agent.js'
import { noBar, pct, rolloutOptions, type Context } from './Stages.js'

/** Makes the RL trainer of a stage (its envs, reward, and the reference policy: the KL anchor when a KL term is on, and the drift diagnostic `kl/prior` always; with a queue, who plays its episodes). */
const makeTrainer = (ctx: Context, i: number, stage: RlStage, source: Env.EnvSource): Trainer.Trainer => {
  const agent = ctx.agent
  const rollout = rolloutOptions(source, ctx.recipe.rollout, stage.rollout)
  const config = trainerConfig(stage, rollout, ctx.recipe.seed + 100 * (i + 1))
  const play = ctx.queue && Runner.asRollout(ctx.queue, { env: stage.env, rollout, policy: agent.policy, contextLength: agent.contextLength, envName: source.name })
  return Trainer.make({
    config,
    policy: agent.policy,
    ...(agent.critic === undefined ? {} : { critic: agent.critic }),
    reference: agent.reference(),
    envs: Array.from({ length: config.seedsPerIteration * config.groupSize }, () => source.make()),
    template: agent.template,
    tokenizer: agent.tokenizer,
    contextLength: agent.contextLength,
    reward: RewardSpec.fromSpec(stage.reward ?? { kind: 'outcome' }),
    ...(play === undefined ? {} : { play })
  })
}

const iterationLine = (name: string, iteration: number, iterations: number, m: Metrics.Metrics): string =>
  `${name}: iter ${iteration}/${iterations} success ${pct(m['episode/success_rate'] ?? 0)} return ${(m['episode/return'] ?? 0).toFixed(3)} turns ${(m['episode/turns'] ?? 0).toFixed(1)} ` +
  `loss/policy ${(m['loss/policy'] ?? 0).toFixed(4)} loss/value ${(m['loss/value'] ?? 0).toFixed(4)} entropy ${(m['entropy/mean'] ?? 0).toFixed(3)} ` +
  `(${(m['time/rollout_s'] ?? 0).toFixed(1)}+${(m['time/update_s'] ?? 0).toFixed(1)} s)`

/** Continues the trainer from the stage's last checkpoint (resuming), dropping the metrics logged after it. */
const resumeTrainer = async (ctx: Context, i: number, name: string, trainer: Trainer.Trainer): Promise<E.Either<CliError, void>> => {
  if (!ctx.resume) return E.right(undefined)
  const at = await Checkpointing.resume(Progress.stageDir(ctx.run, i))(trainer)()
  if (E.isLeft(at)) return E.left(failed(Checkpointing.message(at.left)))
  Progress.truncateMetrics(ctx.run, { ...ctx.progress, nextStage: i }, at.right)
  if (at.right > 0) ctx.reporter.line(`${name}: resumed after iteration ${at.right}`)
  return E.right(undefined)
}

/** Iterates the trainer to the stage's budget, logging and checkpointing; stops on request after a checkpoint. */
const iterate = async (ctx: Context, i: number, stage: RlStage, name: string, trainer: Trainer.Trainer): Promise<E.Either<CliError, void>> => {
  const { run, reporter, recipe } = ctx
  const bar = (reporter.bar ?? noBar)(`${name}: iterations`, stage.iterations)
  while (trainer.state.iteration < stage.iterations) {
    const metrics = await Trainer.iterate(trainer)()
    if (E.isLeft(metrics)) return E.left(failed(EnvError.message(metrics.left)))
    const m = metrics.right
    run.appendMetrics({ kind: 'rl', stage: i, ...m })
    bar.update(trainer.state.iteration, `success ${pct(m['episode/success_rate'] ?? 0)} return ${(m['episode/return'] ?? 0).toFixed(3)}`)
    if (reporter.interactive !== true) reporter.line(iterationLine(name, trainer.state.iteration, stage.iterations, m))
    const due = recipe.checkpointEvery > 0 && trainer.state.iteration % recipe.checkpointEvery === 0
    if (due || ctx.stop.requested()) {
      const saved = await Checkpointing.save(Progress.stageDir(run, i))(trainer)()
      if (E.isLeft(saved)) return E.left(failed(Checkpointing.message(saved.left)))
    }
    if (ctx.stop.requested()) {
      bar.stop()
      return E.left(stopped(`stopped after ${name} iteration ${trainer.state.iteration}; continue with: mtrl resume ${run.path}`))
    }
  }
  bar.stop()
  return E.right(undefined)
}

/**
 * Fails fast when the environment's first prompt leaves no room for a reply in the model's
 * context: every episode would end before its first turn and no action token would be learned
 * from (an RL update would fail deep in TensorFlow.js).
 */
const checkContext = async (ctx: Context, stage: RlStage, name: string, source: Env.EnvSource): Promise<E.Either<CliError, void>> => {
  const rollout = rolloutOptions(source, ctx.recipe.rollout, stage.rollout)
  const env = source.make()
  try {
    const start = await env.reset(0)()
    if (E.isLeft(start)) return E.left(failed(EnvError.message(start.left)))
    const { tokens, fits } = Rollout.firstPrompt(rollout, ctx.agent.template, ctx.agent.contextLength)(start.right)
    if (fits) return E.right(undefined)
    return E.left(
      failed(`${name}: a prompt of ${source.name} has ${tokens.length} tokens; with maxNewTokens ${rollout.maxNewTokens} no action fits the model's context of ${ctx.agent.contextLength} (give the model a longer context, e.g. model.maxLen)`)
    )
  } finally {
    await env.close()()
  }
}

/** Runs RL stage `i` on the context's agent, in place (a critic is added first when the algorithm trains one and the agent has none). */
export const run = async (ctx: Context, i: number, stage: RlStage, name: string): Promise<E.Either<CliError, void>> => {
  const source = ctx.stageSources[i]!
  const agent = ctx.agent
  if (Algorithm.registry[stage.algorithm ?? 'ppo'].critic && agent.critic === undefined) {
    // The critic starts as a copy of the policy's trunk as it is now (after SFT), as in the paper's PPO.
    const critic = Critic.make(agent.policy, { shareTrunk: ctx.recipe.critic.shareTrunk }, ctx.recipe.seed + 7)
    ctx.agent = Agent.fromParts(agent.policy, critic, agent.tokenizer, agent.template, agent.contextLength)
  }
  const fits = await checkContext(ctx, stage, name, source)
  if (E.isLeft(fits)) return fits
  const trainer = makeTrainer(ctx, i, stage, source)
  try {
    const resumed = await resumeTrainer(ctx, i, name, trainer)
    return E.isLeft(resumed) ? resumed : await iterate(ctx, i, stage, name, trainer)
  } finally {
    trainer.dispose()
    await Promise.all(trainer.setup.envs.map((env) => env.close()()))
  }
}
