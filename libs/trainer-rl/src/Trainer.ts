/**
 * One RL iteration of multi-turn agent training, the paper's loop: rollout -> rewards ->
 * advantages -> minibatch updates, returning metrics as data (libs never log).
 *
 * The trainer is a stateful resource (policy and critic optimizers, a sampler session, the
 * random streams, the KL coefficient, the iteration count): {@link make} it, call
 * {@link iterate} repeatedly, `dispose` it. `Checkpointing` saves and restores its whole state.
 *
 * @since 0.1.0
 */
import { Estimator } from '@mtrl/advantages'
import { Rng, type Env, type EnvError, type RewardFn, type Sampler as SamplerContract, type Tokenizer } from '@mtrl/core'
import { Critic, Policy, Sampler } from '@mtrl/policy'
import { Batch, Rollout, type Generator } from '@mtrl/rollout'
import { Optimizer, Schedule } from '@mtrl/optim'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import * as Algorithm from './Algorithm.js'
import type { Config } from './Config.js'
import * as Groups from './Groups.js'
import * as Kl from './Kl.js'
import * as ImportanceSampling from './ImportanceSampling.js'
import * as KlController from './KlController.js'
import { bootstraps, link } from './internal/link.js'
import * as score from './internal/score.js'
import { update } from './internal/update.js'
import { assemble } from './internal/assemble.js'
import { exploredMask, trainingBatch } from './internal/explored.js'
import { explainedVariance, type Metrics } from './Metrics.js'
import * as Replay from './Replay.js'
import type * as UpdateReplicas from './UpdateReplicas.js'

/**
 * What a run trains and where it plays.
 *
 * - `policy`: trained in place; `reference`: a frozen copy of the policy as RL began, the
 *   anchor of the KL term (needed when `config.kl.placement` is not `none`) and, whenever given,
 *   of the `kl/prior` drift metric; `critic`: needed by algorithms with a critic (PPO);
 * - `envs`: `seedsPerIteration * groupSize * oversample` environments, one per episode slot;
 * - `template`, `tokenizer`, `contextLength`: the sampler's text <-> tokens and context size;
 * - `reward`: per-turn rewards of an episode (default: the environment's own `turnRewards`),
 *   e.g. `RewardFn.sum([Outcome.outcome, Penalty.invalidActionPenalty(0.1)])` from `@mtrl/rewards`;
 * - `play`: who plays the episodes (default: this process, with `Rollout.run`).
 *
 * @category models
 * @since 0.1.0
 */
export interface Setup {
  readonly config: Config
  readonly policy: Policy.Policy
  readonly reference?: Policy.Policy
  readonly critic?: Critic.Critic
  readonly envs: ReadonlyArray<Env.Env>
  readonly template: Tokenizer.ChatTemplate
  readonly tokenizer: Tokenizer.Tokenizer
  readonly contextLength: number
  readonly reward?: RewardFn.RewardFn
  /**
   * Plays each iteration's episodes in place of the in-process sampler, from the same input
   * (e.g. `Runner.asRollout` of `@mtrl/rollout-queue`, on worker processes); default `Rollout.run`.
   */
  readonly play?: (input: Rollout.Input) => TE.TaskEither<EnvError.EnvError, Rollout.Result>
  /**
   * Data-parallel replicas of the update (`UpdateReplicas.start` of this policy and critic):
   * each minibatch's gradients are shared between this thread and the workers. The caller
   * starts and disposes them.
   */
  readonly replicas?: UpdateReplicas.Pool
}

/**
 * The mutable part of a trainer, all of it checkpointed.
 *
 * @category models
 * @since 0.1.0
 */
export interface State {
  iteration: number
  kl: KlController.KlController
  tasks: Rng.Rng
  sampling: Rng.Rng
  shuffle: Rng.Rng
  /** Lost training games waiting to be replayed (empty when `config.replay.share` is 0). */
  replay: Replay.Queue
}

/**
 * @category models
 * @since 0.1.0
 */
export interface Trainer {
  readonly setup: Setup
  readonly algorithm: Algorithm.Algorithm
  readonly state: State
  readonly policyOptimizer: Optimizer.Optimizer
  readonly criticOptimizer: Optimizer.Optimizer | undefined
  readonly session: SamplerContract.SamplerSession
  readonly dispose: () => void
}

/**
 * The random streams of a run, all derived from `seed`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const streams = (seed: number): Pick<State, 'tasks' | 'sampling' | 'shuffle'> => {
  const root = Rng.make(seed)
  return { tasks: root.split(), sampling: root.split(), shuffle: root.split() }
}

/**
 * Builds a trainer. Throws (a programmer error) when the setup cannot run the configured
 * algorithm: no critic for PPO, no reference for a KL term, a wrong number of environments,
 * groups of one for a group estimator, temperature 0.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (setup: Setup): Trainer => {
  const { config } = setup
  const algorithm = Algorithm.registry[config.algorithm]
  const slots = config.seedsPerIteration * config.groupSize * config.oversample
  if (setup.envs.length !== slots) throw new Error(`Trainer.make: ${setup.envs.length} envs for ${config.seedsPerIteration} seeds x groupSize ${config.groupSize} x oversample ${config.oversample}`)
  if (algorithm.critic && setup.critic === undefined) throw new Error(`Trainer.make: ${algorithm.name} needs a critic`)
  if (config.kl.placement !== 'none' && setup.reference === undefined) throw new Error(`Trainer.make: KL placement ${config.kl.placement} needs a reference policy`)
  if (algorithm.grouped && config.groupSize < 2) throw new Error(`Trainer.make: ${algorithm.name} needs groupSize >= 2`)
  if (!(config.rollout.temperature > 0)) throw new Error('Trainer.make: the rollout temperature must be > 0 (log-prob ratios are taken at it)')
  const policyOptimizer = Optimizer.make(Policy.trainableVariables(setup.policy))
  if (setup.replicas !== undefined) {
    const same = (a: ReadonlyArray<unknown>, b: ReadonlyArray<unknown>): boolean => a.length === b.length && a.every((x, i) => x === b[i])
    if (!same(setup.replicas.policyVariables, policyOptimizer.variables)) throw new Error("Trainer.make: the replicas were started from another policy than the trainer's")
    if (algorithm.critic && !same(setup.replicas.criticVariables, Critic.trainableVariables(setup.critic!))) throw new Error("Trainer.make: the replicas were started from another critic than the trainer's")
  }
  const criticOptimizer = algorithm.critic && setup.critic !== undefined ? Optimizer.make(Critic.trainableVariables(setup.critic)) : undefined
  const session = Sampler.make(setup.policy, { slots, maxLen: setup.contextLength })
  return {
    setup,
    algorithm,
    state: { iteration: 0, kl: config.kl.controller, ...streams(config.seed), replay: [] },
    policyOptimizer,
    criticOptimizer,
    session,
    dispose: () => {
      session.dispose()
      policyOptimizer.dispose()
      criticOptimizer?.dispose()
    }
  }
}

const now = (): number => performance.now() / 1000

/** Means over the action tokens of the batch: KL terms, sampler gap, advantage moments. */
const tokenStats = (
  batch: Batch.Batch,
  arrays: {
    readonly advantages: Float32Array
    readonly oldLogprobs: Float32Array
    readonly explored?: Float32Array
    readonly klTokens?: Float32Array
    readonly priorTokens?: Float32Array
  }
) => {
  let count = 0
  let sampledCount = 0
  let gap = 0
  let kl = 0
  let prior = 0
  let sum = 0
  let squares = 0
  batch.actionMask.forEach((m, i) => {
    if (m !== 1) return
    count++
    if (arrays.explored?.[i] !== 1) {
      sampledCount++
      gap += Math.abs(batch.samplerLogprobs[i]! - arrays.oldLogprobs[i]!)
    }
    kl += arrays.klTokens?.[i] ?? 0
    prior += arrays.priorTokens?.[i] ?? 0
    sum += arrays.advantages[i]!
    squares += arrays.advantages[i]! ** 2
  })
  const mean = (x: number): number => (count === 0 ? Number.NaN : x / count)
  const advantageMean = mean(sum)
  return {
    gap: sampledCount === 0 ? Number.NaN : gap / sampledCount,
    klMean: arrays.klTokens === undefined ? Number.NaN : mean(kl),
    priorKl: arrays.priorTokens === undefined ? Number.NaN : mean(prior),
    advantageMean,
    advantageStd: count < 2 ? Number.NaN : Math.sqrt(Math.max(0, (squares - count * advantageMean ** 2) / (count - 1)))
  }
}

/**
 * The policy's learning rate at an iteration (0-based): `warmupIterations` of linear warm-up, then
 * cosine decay to `minLrRatio` x `policyLr` at `decayIterations` (constant when `minLrRatio` is 1).
 */
export const policyLrAt =
  (config: Pick<Config, 'policyLr' | 'warmupIterations' | 'minLrRatio' | 'decayIterations'>) =>
  (iteration: number): number =>
    Schedule.learningRate({
      peak: config.policyLr,
      warmupSteps: config.warmupIterations,
      totalSteps: config.minLrRatio < 1 ? config.decayIterations : config.warmupIterations + 1,
      minRatio: config.minLrRatio
    })(iteration)

const estimatorOf = (config: Config, algorithm: Algorithm.Algorithm) => {
  const configured = Estimator.configure(config.estimator ?? algorithm.estimator)(config.estimatorOptions)
  if (E.isLeft(configured)) throw new Error(`Trainer: ${configured.left.subject}: ${configured.left.issues.map((i) => `${i.path}: ${i.expected}`).join('; ')}`)
  return configured.right
}

/** Per drawn seed: whether an episode of its game was lost (false when none of it came back). */
const lostGames = (seeds: ReadonlyArray<number>, episodes: ReadonlyArray<{ readonly trajectory: { readonly seed: number; readonly won: boolean } }>): ReadonlyArray<boolean> => {
  const lost = new Map<number, boolean>()
  for (const { trajectory } of episodes) lost.set(trajectory.seed, (lost.get(trajectory.seed) ?? false) || !trajectory.won)
  return seeds.map((seed) => lost.get(seed) ?? false)
}

/** Success rate of the episodes of replayed games (NaN when none was replayed). */
const replaySuccess = (drawn: Replay.Draw, episodes: ReadonlyArray<{ readonly trajectory: { readonly seed: number; readonly won: boolean } }>): number => {
  const replayed = new Set(drawn.seeds.filter((_, i) => drawn.replays[i]! > 0))
  const played = episodes.filter((e) => replayed.has(e.trajectory.seed))
  return played.length === 0 ? Number.NaN : played.filter((e) => e.trajectory.won).length / played.length
}

/**
 * One iteration: draws `seedsPerIteration` task seeds (`oversample` x as many with dynamic
 * sampling; a share of them replays of recently lost games when `config.replay` is on), rolls
 * out `groupSize` episodes each, rewards them, keeps the groups `filterZeroVariance` keeps (at
 * most `seedsPerIteration`) and of each the `keepPerGroup` most varied episodes, estimates advantages (linking the samples of each episode), and updates the
 * critic and (after `criticWarmup` iterations) the policy. Environment failures end the
 * iteration with the environment's error (no update is made).
 *
 * @example
 * import { Trainer } from '@mtrl/trainer-rl'
 * declare const trainer: Trainer.Trainer
 * const metrics = await Trainer.iterate(trainer)()
 *
 * @category combinators
 * @since 0.1.0
 */
export const iterate =
  (trainer: Trainer): TE.TaskEither<EnvError.EnvError, Metrics> =>
  async () => {
    const { setup, state, algorithm } = trainer
    const { config } = setup
    const started = now()
    const played = config.seedsPerIteration * config.oversample
    const drawn = Replay.draw(config.replay, played, () => state.tasks.int(2147483647))(state.replay)
    const seeds = drawn.seeds
    const generator: Generator.Generator = { session: trainer.session, template: setup.template, tokenizer: setup.tokenizer, contextLength: setup.contextLength }
    const play = setup.play ?? Rollout.run(config.rollout)(generator)
    const rolled = await play({ envs: setup.envs, seeds, groupSize: config.groupSize, rng: state.sampling })()
    if (E.isLeft(rolled)) return rolled
    const { episodes, metrics: rollout } = rolled.right
    const rolledAt = now()
    state.replay = Replay.record(config.replay, played, drawn, lostGames(seeds, episodes))(drawn.queue)
    if (config.rollout.turnsPerSlot === undefined) {
      const checked = Groups.check(config.groupSize)(episodes.map((e) => e.trajectory))
      if (E.isLeft(checked)) throw new Error(`Trainer.iterate: group integrity: ${checked.left}`)
    }
    const reward = setup.reward ?? ((t) => t.turnRewards)
    const turnRewards = episodes.map((e) => reward(e.trajectory))
    const outcomes = turnRewards.map((rs) => rs.reduce((a, b) => a + b, 0))
    const groupIds = episodes.map((e) => e.trajectory.groupId)
    const selected = config.filterZeroVariance ? Groups.firstGroups(config.seedsPerIteration, Groups.nonDegenerate(groupIds, outcomes), groupIds) : episodes.map(() => true)
    const keep = config.keepPerGroup === null ? selected : Groups.downsample(config.keepPerGroup, selected, groupIds, outcomes)
    const kept = episodes.map((e, i) => ({ e, i })).filter(({ i }) => keep[i])
    const samples = kept.flatMap(({ e }) => e.samples)
    const base = {
      iteration: state.iteration,
      rollout,
      outcomes,
      episodes: episodes.map((e) => e.trajectory),
      filtered: episodes.length - kept.length,
      replayed: drawn.replays.filter((r) => r > 0).length,
      replaySuccess: replaySuccess(drawn, episodes),
      rolloutSeconds: rolledAt - started,
      policyLr: policyLrAt(config)(state.iteration)
    }
    let metricsOut: Metrics
    if (samples.length === 0) {
      metricsOut = assemble(base, undefined, now() - rolledAt, config.kl.placement === 'none' ? undefined : state.kl)
    } else {
      const batch = Batch.make({ pad: setup.tokenizer.special.pad })(samples)
      const temperature = config.rollout.temperature
      const explored = exploredMask(samples, batch.time)
      // Without top-k / top-p the sampler's log-probs are the policy's own (same forward, same
      // temperature; `logprob/sampler_trainer_gap` checks it on the first minibatch), so the
      // behaviour log-probs need no second forward pass. Truncated sampling renormalises them,
      // and exploration moves have none: then the policy scores the batch.
      // An importance-sampling correction needs the trainer's own log-probs to compare with the sampler's.
      const exact = config.rollout.topK === undefined && config.rollout.topP === undefined && explored === undefined && config.importanceSampling.mode === 'off'
      const oldLogprobs = exact ? batch.samplerLogprobs : score.logprobs(setup.policy, batch, temperature)
      const sampled = batch.actionMask.map((m, i) => (m === 1 && explored?.[i] !== 1 ? 1 : 0))
      const correction = exact ? undefined : ImportanceSampling.correct(config.importanceSampling)({ rows: batch.batch, time: batch.time, sampled, trainerLogprobs: oldLogprobs, samplerLogprobs: batch.samplerLogprobs })
      const klNeeded = config.kl.placement !== 'none'
      const driftNow = config.priorKlEvery > 0 && state.iteration % config.priorKlEvery === 0
      const refLogprobs = setup.reference === undefined || (!klNeeded && !driftNow) ? undefined : score.logprobs(setup.reference, batch, temperature)
      const klOn = klNeeded && refLogprobs !== undefined
      const after = algorithm.critic && setup.critic !== undefined ? score.valuesAfter(setup.critic, batch) : undefined
      const values = after === undefined ? undefined : score.valuesBefore(after, batch)
      const klTokens = klOn ? Kl.estimateArray(config.kl.estimator)(oldLogprobs, refLogprobs) : undefined
      const priorTokens = refLogprobs === undefined ? undefined : config.kl.estimator === 'k3' && klTokens !== undefined ? klTokens : Kl.estimateArray('k3')(oldLogprobs, refLogprobs)
      const tokenPenalty = klTokens !== undefined && config.kl.placement === 'reward' ? klTokens.map((k) => -state.kl.coef * k) : undefined
      let rowAt = 0
      const linked = kept.map(({ e, i }) => {
        const rows = e.samples.map(() => rowAt++)
        return { rows, turnRewards: turnRewards[i]!, groupId: e.trajectory.groupId, bootstrap: bootstraps(config, e) }
      })
      const { advantages, returns } = link(
        { batch, samples, episodes: linked, ...(tokenPenalty ? { tokenPenalty } : {}), ...(values ? { values } : {}), ...(after ? { valuesAfter: after } : {}) },
        estimatorOf(config, algorithm)
      )
      const policyLr = base.policyLr
      const trained = trainingBatch(config.exploredCredit, batch, explored, advantages)
      const updateStarted = now()
      const updated = update(
        {
          config,
          lossKind: algorithm.loss,
          policy: setup.policy,
          critic: setup.critic,
          policyOptimizer: trainer.policyOptimizer,
          criticOptimizer: trainer.criticOptimizer,
          policyLr,
          updatePolicy: state.iteration >= config.criticWarmup || !algorithm.critic,
          klCoef: state.kl.coef,
          shuffle: state.shuffle,
          ...(setup.replicas === undefined ? {} : { replicas: setup.replicas })
        },
        {
          batch: trained,
          oldLogprobs,
          advantages,
          returns,
          ...(values ? { oldValues: values } : {}),
          ...(klOn && config.kl.placement === 'loss' ? { refLogprobs } : {}),
          ...(correction !== undefined && config.importanceSampling.mode !== 'off' ? { importanceWeights: correction.weights } : {})
        }
      )
      const updateSeconds = now() - updateStarted
      const stats = {
        updated,
        ...tokenStats(batch, { advantages, oldLogprobs, ...(explored ? { explored } : {}), ...(klTokens ? { klTokens } : {}), ...(priorTokens ? { priorTokens } : {}) }),
        ...(exact ? { gap: updated.samplerGap } : {}),
        ...(correction === undefined ? {} : { mismatch: correction.mismatch }),
        explainedVariance: values === undefined ? Number.NaN : explainedVariance(values, returns, batch.actionMask),
        samples: samples.length,
        updateTokensPerSecond: (batch.lengths.reduce((a, b) => a + b, 0) * config.ppoEpochs) / Math.max(updateSeconds, 1e-9)
      }
      if (klOn) state.kl = KlController.update(stats.klMean, samples.length)(state.kl)
      metricsOut = assemble(base, stats, now() - rolledAt, klOn ? state.kl : undefined)
    }
    state.iteration += 1
    return E.right(metricsOut)
  }
