/**
 * An RL stage: the trainer of the stage (its envs, reward, reference policy when a KL term is
 * on), iterated to the stage's budget with checkpoints every `checkpointEvery` iterations; a
 * resumed stage continues from its last checkpoint with the same random streams.
 */
import { Judge, Play } from '@mtrl/agent-rl'
import type { Env } from '@mtrl/core'
import { Progress } from '@mtrl/experiment'
import { Agent, Critic } from '@mtrl/policy'
import { RewardSpec } from '@mtrl/rewards'
import { Runner, Threads } from '@mtrl/rollout-queue'
import { Completions, Rollouts, Server } from '@mtrl/serving'
import { Driver, Trainer, UpdateReplicas, type Metrics } from '@mtrl/trainer-rl'
import * as E from 'fp-ts/lib/Either.js'
import { stageAlgorithm, trainerConfig, type JudgeSettings, type RlStage } from '../Recipe.js'
import { failed, stopped, type RunError } from '../RunError.js'
import { noBar, pct, rolloutOptions, type Context } from './context.js'
import * as ThreadEnvs from './threadEnvs.js'

/**
 * Makes the RL trainer of a stage (its envs, reward, and the reference policy: the KL anchor when a
 * KL term is on, and the drift diagnostic `kl/prior` always; with a queue, who plays its episodes).
 */
const makeTrainer = (
  ctx: Context,
  i: number,
  stage: RlStage,
  source: Env.EnvSource,
  replicas: UpdateReplicas.Pool,
  played: Played | undefined
): Trainer.Trainer => {
  const agent = ctx.agent
  const rollout = rolloutOptions(source, ctx.recipe.rollout, stage.rollout)
  const config = trainerConfig(stage, rollout, ctx.recipe.seed + 100 * (i + 1), ctx.recipe.checkpointEvery)
  const play =
    played?.play ??
    (ctx.queue && Runner.asRollout(ctx.queue, { env: stage.env, rollout, policy: agent.policy, contextLength: agent.contextLength, envName: source.name }))
  return Trainer.make({
    config,
    policy: agent.policy,
    ...(agent.critic === undefined ? {} : { critic: agent.critic }),
    reference: agent.reference(),
    envs: Array.from({ length: config.budget.seedsPerIteration * config.budget.groupSize * config.selection.oversample }, () => source.make()),
    template: agent.template,
    tokenizer: agent.tokenizer,
    contextLength: agent.contextLength,
    // an agent written as code gives its own rewards, or its judge does (the episode's turn
    // rewards), unless the stage names a reward to compute from its turn reports
    reward: stage.agent === undefined || stage.reward !== undefined ? RewardSpec.fromSpec(stage.reward ?? { kind: 'outcome' }) : (t) => t.turnRewards,
    ...(play === undefined ? {} : { play }),
    ...(replicas.size === 0 ? {} : { replicas })
  })
}

/** Who plays a stage's episodes when not the trainer alone: an agent written as code on the served policy, or rollout threads; `close` stops them. */
interface Played {
  readonly play: NonNullable<Trainer.Setup['play']>
  readonly close: () => Promise<void>
}

/**
 * The stage's rollout threads: `rolloutThreads - 1` workers besides this thread (none for 1), or
 * with `maxStaleness` above 0, `rolloutThreads` workers and this thread free for the update; not
 * beside worker processes (which play ahead by themselves).
 */
const startThreads = async (ctx: Context, stage: RlStage, name: string, source: Env.EnvSource): Promise<E.Either<RunError, Played | undefined>> => {
  const threads = stage.rolloutThreads ?? 1
  const ahead = (stage.maxStaleness ?? 0) > 0
  if (threads > 1 && ctx.queue !== undefined)
    return E.left(failed(`${name}: rolloutThreads ${threads}: expected 1 when worker processes play the episodes (--redis, --workers)`))
  if ((threads === 1 && !ahead) || ctx.queue !== undefined) return E.right(undefined)
  const { rollout } = trainerConfig(stage, rolloutOptions(source, ctx.recipe.rollout, stage.rollout), 0)
  const { policy, contextLength } = ctx.agent
  const started = await Threads.start({
    threads,
    policy,
    rollout,
    contextLength,
    env: stage.env,
    envs: ThreadEnvs.url(),
    callerPlays: !ahead,
    ...(ctx.replicaInit === undefined ? {} : { init: ctx.replicaInit })
  })()
  if (E.isLeft(started)) return E.left(failed(`${name}: ${Threads.message(started.left)}`))
  const workers = `workers on ${started.right.backends.join(', ')}`
  ctx.reporter.line(
    ahead
      ? `${name}: episodes played up to ${stage.maxStaleness} iteration(s) ahead by ${threads} worker thread(s) (${started.right.backends.join(', ')}) while this thread updates`
      : `${name}: episodes played by ${threads} threads (${workers})`
  )
  return E.right({ play: started.right.play, close: started.right.dispose })
}

/** Who plays the stage's episodes: the agent written as code it names, or its rollout threads, or the trainer. */
const player = (ctx: Context, stage: RlStage, name: string, source: Env.EnvSource): Promise<E.Either<RunError, Played | undefined>> =>
  stage.agent === undefined ? startThreads(ctx, stage, name, source) : serve(ctx, stage, source, stage.agent)

/** The judge of a stage's runs (its key read from the environment variable the recipe names). */
const judgeOf = (settings: JudgeSettings): E.Either<RunError, Judge.Judge> => {
  const apiKey = settings.apiKeyEnv === undefined ? undefined : process.env[settings.apiKeyEnv]
  if (settings.apiKeyEnv !== undefined && (apiKey === undefined || apiKey === ''))
    return E.left(failed(`the judge's key: the environment variable ${settings.apiKeyEnv} (judge.apiKeyEnv) is not set`))
  const { url, apiKeyEnv: _key, ...rest } = settings
  return E.right(Judge.make({ ...rest, baseURL: url, ...(apiKey === undefined ? {} : { apiKey }) }))
}

/** Serves the stage's policy and loads its agent module (see `RlStage.agent`). */
const serve = async (ctx: Context, stage: RlStage, source: Env.EnvSource, module: string): Promise<E.Either<RunError, Played>> => {
  const given = ctx.agents[module]
  const loaded = given === undefined ? await Play.fromModule(module) : E.right(given)
  if (E.isLeft(loaded)) return E.left(failed(loaded.left))
  const rollout = rolloutOptions(source, ctx.recipe.rollout, stage.rollout)
  const { budget } = trainerConfig(stage, rollout, 0)
  const model = Completions.model(ctx.agent, { name: 'policy', slots: budget.seedsPerIteration * budget.groupSize })
  const rollouts = Rollouts.make()
  const started = await Server.start({ model, rollouts })()
  if (E.isLeft(started)) {
    await model.close()
    return E.left(failed(`cannot serve the policy for the agent ${module}: ${started.left.reason}`))
  }
  const server = started.right
  const judge = stage.judge === undefined ? undefined : judgeOf(stage.judge)
  if (judge !== undefined && E.isLeft(judge)) {
    await server.close()
    await model.close()
    return judge
  }
  const play = Play.play(loaded.right, {
    url: server.url,
    rollouts,
    model: 'policy',
    tokenizer: ctx.agent.tokenizer,
    temperature: rollout.temperature,
    maxTokens: rollout.maxNewTokens,
    ...(judge === undefined ? {} : { judge: judge.right })
  })
  return E.right({ play, close: async () => (await server.close(), await model.close()) })
}

/** Rollout + update seconds; for episodes played ahead, the wait for them + update, and the rollout's own time. */
const timing = (m: Metrics.Metrics): string => {
  const [rollout, wait, update] = [m['time/rollout_s'] ?? 0, m['time/wait_s'] ?? 0, m['time/update_s'] ?? 0].map((x) => x.toFixed(1))
  return (m['rollout/staleness'] ?? 0) > 0 ? `(${wait}+${update} s; played ahead in ${rollout} s)` : `(${rollout}+${update} s)`
}

/**
 * An iteration's line; an iteration without a policy update (the critic's warm-up) says so
 * instead of a NaN policy loss and entropy, and an algorithm without a critic shows no value loss.
 */
const iterationLine = (name: string, iteration: number, iterations: number, m: Metrics.Metrics): string => {
  const policy = Number.isNaN(m['loss/policy'] ?? 0)
    ? 'policy not updated (critic warm-up)'
    : `loss/policy ${(m['loss/policy'] ?? 0).toFixed(4)} entropy ${(m['entropy/mean'] ?? 0).toFixed(3)}`
  return (
    `${name}: iter ${iteration}/${iterations} success ${pct(m['episode/success_rate'] ?? 0)} return ${(m['episode/return'] ?? 0).toFixed(3)} turns ${(m['episode/turns'] ?? 0).toFixed(1)} ` +
    `${policy}${Number.isNaN(m['loss/value'] ?? Number.NaN) ? '' : ` loss/value ${(m['loss/value'] ?? 0).toFixed(4)}`} ${timing(m)}`
  )
}

/** Drives the trainer to the stage's budget (from its last checkpoint when resuming), logging each iteration; stops on request after a checkpoint. */
const iterate = async (ctx: Context, i: number, stage: RlStage, name: string, trainer: Trainer.Trainer): Promise<E.Either<RunError, void>> => {
  const { run, reporter } = ctx
  const bar = (reporter.bar ?? noBar)(`${name}: iterations`, stage.iterations)
  const onResume = (at: number): void => {
    Progress.truncateMetrics(run, { ...ctx.progress, nextStage: i }, at)
    if (at > 0) reporter.line(`${name}: resumed after iteration ${at}`)
  }
  const onIteration = (m: Metrics.Metrics, iteration: number): void => {
    run.appendMetrics({ kind: 'rl', stage: i, ...m })
    bar.update(iteration, `success ${pct(m['episode/success_rate'] ?? 0)} return ${(m['episode/return'] ?? 0).toFixed(3)}`)
    if (reporter.interactive !== true) reporter.line(iterationLine(name, iteration, stage.iterations, m))
  }
  const options = { iterations: stage.iterations, dir: Progress.stageDir(run, i), resume: ctx.resume, stop: ctx.stop.requested, onResume, onIteration }
  const outcome = await Driver.run(options)(trainer)()
  bar.stop()
  if (E.isLeft(outcome)) return E.left(failed(Driver.message(outcome.left)))
  return outcome.right._tag === 'Finished'
    ? E.right(undefined)
    : E.left(stopped(`stopped after ${name} iteration ${outcome.right.iteration}; continue with: mtrl resume ${run.path}`))
}

/** Runs RL stage `i` on the context's agent, in place (a critic is added first when the algorithm trains one and the agent has none). */
export const run = async (ctx: Context, i: number, stage: RlStage, name: string): Promise<E.Either<RunError, void>> => {
  const source = ctx.stageSources[i]!
  const agent = ctx.agent
  const withCritic = stageAlgorithm(stage).critic
  if (withCritic && agent.critic === undefined) {
    // The critic starts as a copy of the policy's trunk as it is now (after SFT), as in the paper's PPO.
    const critic = Critic.make(agent.policy, { shareTrunk: ctx.recipe.critic.shareTrunk }, ctx.recipe.seed + 7)
    ctx.agent = Agent.withCritic(agent, critic)
  }
  const rollout = rolloutOptions(source, ctx.recipe.rollout, stage.rollout)
  const fits = await Driver.checkContext(rollout, ctx.agent.template, ctx.agent.contextLength)(source)()
  if (E.isLeft(fits)) return E.left(failed(fits.left._tag === 'ContextTooShort' ? `${name}: ${Driver.message(fits.left)}` : Driver.message(fits.left)))
  const replicas = await UpdateReplicas.start(ctx.agent.policy, withCritic ? ctx.agent.critic : undefined, (stage.replicas ?? 1) - 1, ctx.replicaInit)
  if (replicas.size > 0) ctx.reporter.line(`${name}: ${replicas.size + 1} data-parallel update replicas (workers on ${replicas.backends.join(', ')})`)
  const played = await player(ctx, stage, name, source)
  if (E.isLeft(played)) {
    await replicas.dispose()
    return played
  }
  if (stage.agent !== undefined) ctx.reporter.line(`${name}: episodes played by the agent ${stage.agent} through the policy's OpenAI endpoint`)
  try {
    const trainer = makeTrainer(ctx, i, stage, source, replicas, played.right)
    try {
      return await iterate(ctx, i, stage, name, trainer)
    } finally {
      trainer.dispose()
      await Promise.all(trainer.setup.envs.map((env) => env.close()()))
    }
  } finally {
    await played.right?.close()
    await replicas.dispose()
  }
}
