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
import { Decode, Rng, type Env, type EnvError, type RewardFn, type Sampler as SamplerContract, type Tokenizer } from '@mtrl/core'
import { Critic, Policy, Sampler } from '@mtrl/policy'
import { Batch, type Generator, type Rollout } from '@mtrl/rollout'
import { Optimizer, Schedule } from '@mtrl/optim'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import * as Algorithm from './Algorithm.js'
import * as Config from './Config.js'
import { exploredMask } from './internal/explored.js'
import { collect, type Collected } from './internal/stages/collect.js'
import { estimate } from './internal/stages/estimate.js'
import { optimise } from './internal/stages/optimise.js'
import { report, reportIdle } from './internal/stages/report.js'
import { score } from './internal/stages/score.js'
import { select } from './internal/stages/select.js'
import type * as KlController from './KlController.js'
import type { Metrics } from './Metrics.js'
import type * as Replay from './Replay.js'
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
  readonly config: Config.Config
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
   * (e.g. `Runner.asRollout` of `@mtrl/rollout-queue`, on worker processes; its `Threads`, on
   * worker threads and this one); default `Rollout.run`. `generator` is the trainer's own
   * (its sampler session, template, tokenizer), for a player that plays some episodes here.
   * With `config.maxStaleness` above 0 it is needed, and must compute off this thread (e.g.
   * `Threads` with `callerPlays: false`) and take the weights (and everything else it plays
   * from) when called, before its first `await`: the trainer calls it just before an update.
   */
  readonly play?: (input: Rollout.Input, generator: Generator.Generator) => TE.TaskEither<EnvError.EnvError, Rollout.Result>
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
  /** `setup.config` with the algorithm's choices filled in (`Config.resolve`): what the stages read. */
  readonly config: Config.Resolved
  readonly algorithm: Algorithm.Algorithm
  readonly state: State
  readonly policyOptimizer: Optimizer.Optimizer
  readonly criticOptimizer: Optimizer.Optimizer | undefined
  readonly session: SamplerContract.SamplerSession
  /**
   * The next iterations' rollouts, started ahead while an update runs (`config.maxStaleness`;
   * empty otherwise), in iteration order. Not checkpointed: a resumed run plays its first
   * iteration anew.
   */
  readonly ahead: Array<Promise<E.Either<EnvError.EnvError, Collected>>>
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

/** The configuration, decoded by its codec (every check of it is there): a bad one is a programmer error here. */
const checkedConfig = (config: Config.Config): Config.Resolved => {
  const decoded = Decode.decode('trainer configuration', Config.Config)(config)
  if (E.isLeft(decoded)) throw new Error(`Trainer.make: ${Decode.formatError(decoded.left)}`)
  return Config.resolve(decoded.right)
}

/** What the setup must give the configured algorithm: one environment per slot, a critic, a reference for a KL term. */
const checkSetup = (setup: Setup, config: Config.Resolved, algorithm: Algorithm.Algorithm): void => {
  const { seedsPerIteration, groupSize } = config.budget
  const slots = seedsPerIteration * groupSize * config.selection.oversample
  if (setup.envs.length !== slots)
    throw new Error(
      `Trainer.make: ${setup.envs.length} envs for ${seedsPerIteration} seeds x groupSize ${groupSize} x oversample ${config.selection.oversample}`
    )
  if (algorithm.critic && setup.critic === undefined) throw new Error(`Trainer.make: ${algorithm.name} needs a critic`)
  if (config.maxStaleness > 0 && setup.play === undefined)
    throw new Error(
      `Trainer.make: maxStaleness ${config.maxStaleness} plays episodes while the update runs, which needs a player off this thread (setup.play, e.g. Threads of @mtrl/rollout-queue with callerPlays: false)`
    )
  if (config.kl.placement !== 'none' && setup.reference === undefined)
    throw new Error(
      `Trainer.make: ${algorithm.name}'s KL term (${config.kl.placement}) needs a reference policy; give one, or turn the term off with "kl": Kl.none`
    )
}

/**
 * Builds a trainer. Throws (a programmer error) when the configuration does not decode with
 * `Config.Config` (the error names the field), or the setup cannot run the configured algorithm:
 * no critic for PPO, no reference for a KL term, a wrong number of environments, replicas of
 * another policy.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (setup: Setup): Trainer => {
  const config = checkedConfig(setup.config)
  const algorithm = Algorithm.registry[config.algorithm]
  checkSetup(setup, config, algorithm)
  const slots = setup.envs.length
  const policyOptimizer = Optimizer.make(Policy.trainableVariables(setup.policy))
  if (setup.replicas !== undefined) {
    const same = (a: ReadonlyArray<unknown>, b: ReadonlyArray<unknown>): boolean => a.length === b.length && a.every((x, i) => x === b[i])
    if (!same(setup.replicas.policyVariables, policyOptimizer.variables))
      throw new Error("Trainer.make: the replicas were started from another policy than the trainer's")
    if (algorithm.critic && !same(setup.replicas.criticVariables, Critic.trainableVariables(setup.critic!)))
      throw new Error("Trainer.make: the replicas were started from another critic than the trainer's")
  }
  const criticOptimizer = algorithm.critic && setup.critic !== undefined ? Optimizer.make(Critic.trainableVariables(setup.critic)) : undefined
  const session = Sampler.make(setup.policy, { slots, maxLen: setup.contextLength })
  return {
    setup,
    config,
    algorithm,
    state: { iteration: 0, kl: config.kl.controller, ...streams(config.seed), replay: [] },
    policyOptimizer,
    criticOptimizer,
    session,
    ahead: [],
    dispose: () => {
      session.dispose()
      policyOptimizer.dispose()
      criticOptimizer?.dispose()
    }
  }
}

/**
 * The policy's learning rate at an iteration (0-based): `warmupIterations` of linear warm-up, then
 * cosine decay to `minLrRatio` x `lr` at `decayIterations` (constant when `minLrRatio` is 1).
 */
export const policyLrAt =
  (policy: Config.PolicyOptimiser) =>
  (iteration: number): number =>
    Schedule.learningRate({
      peak: policy.lr,
      warmupSteps: policy.warmupIterations,
      totalSteps: policy.minLrRatio < 1 ? policy.decayIterations : policy.warmupIterations + 1,
      minRatio: policy.minLrRatio
    })(iteration)

/**
 * What {@link iterate} may know of the run: `following`, how many iterations will follow this one
 * (default: no end), so that no episodes are played ahead for an iteration that will not run.
 *
 * @category models
 * @since 0.7.0
 */
export interface IterateOptions {
  readonly following?: number
}

/** Starts the rollouts of the next `depth` iterations that are not started yet, each once the one before it has come back. */
const playAhead = (trainer: Trainer, depth: number): void => {
  while (trainer.ahead.length < depth) {
    const last = trainer.ahead.at(-1)
    const next = last === undefined ? collect(trainer) : last.then((r) => (E.isLeft(r) ? r : collect(trainer)))
    next.catch(() => undefined) // awaited by its iteration; meanwhile a rejection is not unhandled
    trainer.ahead.push(next)
  }
}

/**
 * Waits for the rollouts started ahead and drops them (their seeds and sampling draws are spent):
 * for a run that stops or fails, before its player is closed.
 *
 * @category combinators
 * @since 0.7.0
 */
export const settle = async (trainer: Trainer): Promise<void> => {
  await Promise.allSettled(trainer.ahead.splice(0))
}

/**
 * One iteration, as its stages (`internal/stages/`):
 * 1. **collect**: draw `seedsPerIteration` task seeds (`oversample` x as many with dynamic
 *    sampling; a share of them replays of recently lost games when `config.replay` is on) and
 *    play `groupSize` episodes of each; with `maxStaleness` N > 0, the episodes come from a
 *    rollout started up to N iterations before, and the next iterations' rollouts start before
 *    this update (`rollout/staleness` says how many updates behind the episodes' weights are);
 * 2. **select**: reward them, keep the groups `filterZeroVariance` keeps (at most
 *    `seedsPerIteration`) and of each the `keepPerGroup` most varied episodes;
 * 3. **score**: behaviour log-probs (and the sampler's mismatch to them), the reference's
 *    log-probs and KL, the critic's values;
 * 4. **estimate**: advantages and returns, the samples of each episode linked;
 * 5. **optimise**: the critic and (after `criticWarmup` iterations) the policy, by minibatches;
 * 6. **report**: the metrics, and the KL controller's step.
 * Environment failures end the iteration with the environment's error (no update is made; the
 * rollouts started ahead are waited for and dropped).
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
  (trainer: Trainer, options: IterateOptions = {}): TE.TaskEither<EnvError.EnvError, Metrics> =>
  async () => {
    const waiting = performance.now()
    const collected = await (trainer.ahead.shift() ?? collect(trainer))
    const waited = (performance.now() - waiting) / 1000
    if (E.isLeft(collected)) {
      await settle(trainer)
      return collected
    }
    playAhead(trainer, Math.min(trainer.config.maxStaleness, options.following ?? Number.POSITIVE_INFINITY))
    const rolledAt = performance.now()
    const sinceRollout = (): number => (performance.now() - rolledAt) / 1000
    const selected = select(trainer, collected.right.episodes)
    const base = { collected: collected.right, selected, policyLr: policyLrAt(trainer.config.policy)(trainer.state.iteration), waited }
    let metrics: Metrics
    if (selected.samples.length === 0) metrics = reportIdle(trainer, base, sinceRollout())
    else {
      const batch = Batch.make({ pad: trainer.setup.tokenizer.special.pad })(selected.samples)
      const scored = score(trainer, batch, exploredMask(selected.samples, batch.time))
      const estimated = estimate(trainer, batch, selected, scored)
      const optimised = optimise(trainer, batch, scored, estimated, base.policyLr)
      metrics = report(trainer, base, batch, scored, estimated, optimised, sinceRollout())
    }
    trainer.state.iteration += 1
    return E.right(metrics)
  }
