/**
 * The configuration of an RL run: algorithm, rollout, optimisation, KL, critic, checkpoints.
 * A recipe's `trainer` section decodes into it.
 *
 * @since 0.1.0
 */
import { Estimator } from '@mtrl/advantages'
import { Numbers, type Decode } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { Rollout } from '@mtrl/rollout'
import * as t from 'io-ts'
import * as Aggregation from './Aggregation.js'
import * as Algorithm from './Algorithm.js'
import * as ImportanceSampling from './ImportanceSampling.js'
import * as Kl from './Kl.js'
import * as Replay from './Replay.js'

/**
 * See `truncation` in {@link Config}.
 *
 * @category codecs
 * @since 0.2.0
 */
export const Truncation = t.keyof({ terminal: null, bootstrap: null })
/** @category models @since 0.2.0 */
export type Truncation = t.TypeOf<typeof Truncation>

/**
 * - `algorithm`, `estimator` (override of the algorithm's), `estimatorOptions` (partial options
 *   of the estimator, e.g. `{ gamma: 1, lambda: 1 }`);
 * - `seedsPerIteration` x `groupSize` episodes per iteration (`groupSize` >= 2 for GRPO / RLOO);
 * - `rollout`: see `Rollout.Options`;
 * - `policyLr`, `criticLr`: Adam learning rates (separate, as the paper: 1e-6 / 1e-5);
 * - `warmupIterations`: linear learning-rate warm-up of the policy, in iterations;
 * - `minLrRatio`, `decayIterations`: cosine decay of the policy's learning rate after the warm-up
 *   to `minLrRatio` x `policyLr` at iteration `decayIterations` (`@mtrl/optim`'s `Schedule`, as
 *   SFT's; TRL and verl decay the actor's rate too). `minLrRatio` 1 (the default) keeps it
 *   constant; a recipe's RL stage fills `decayIterations` with its `iterations` unless set. The
 *   critic's rate stays constant (it tracks a moving policy);
 * - `ppoEpochs`, `minibatches`: passes over the batch and minibatches per pass;
 * - `clipLow`, `clipHigh`, `dualClip`, `aggregation`: the policy loss (`aggregation` null: the
 *   algorithm's, `Algorithm`);
 * - `valueClip`: the value loss clip (`null`: none); `criticWarmup`: iterations of critic-only
 *   updates before the policy moves;
 * - `entropyCoef`: entropy bonus (subtracted from the loss); `maxGradNorm`: global-norm clip;
 * - `valueCoef`: with a critic that shares the policy's trunk, the weight of the value loss in
 *   the policy's own loss, so that its gradient also trains the trunk (at the policy's learning
 *   rate; the head still steps at `criticLr`), as a policy-and-value network; 0 (default): the
 *   value loss trains the head only. Ignored with a separate critic;
 * - `contextCoef`: weight of an auxiliary next-token loss on the episodes' own prompt and
 *   observation tokens (what the environment said; no expert data), at the rollout temperature:
 *   self-supervised, like SFT's context loss (decision 0005); 0 turns it off;
 * - `kl`: estimator, placement (`reward` | `loss` | `none`) and controller of the coefficient
 *   (`Kl.Settings`; null: the algorithm's, e.g. GRPO's k3 loss at 0.04, REINFORCE++'s k1 reward
 *   penalty at 0.01; `Kl.none` turns a KL term off);
 * - `priorKlEvery`: measure `kl/prior` (the drift from the stage's starting policy, a forward
 *   pass of the frozen reference over the whole batch, in the trainer's thread) every N
 *   iterations (NaN in between; 0: never; default 5: measured every iteration it was about a
 *   third of a critic-free iteration's update time on wasm with 2 replicas, decision 0010). A KL
 *   term in the reward or loss needs the reference every iteration and ignores it;
 * - `filterZeroVariance`: drop groups whose episodes all got the same return;
 * - `oversample`: with `filterZeroVariance`, play `oversample` x `seedsPerIteration` groups and
 *   update on the first `seedsPerIteration` that are kept (DAPO's dynamic sampling, verl's
 *   `filter_groups`, in one rollout): the update's size stays, the share of it that carries
 *   signal grows. 1 (default): play what the update takes;
 * - `keepPerGroup`: update on at most this many episodes of each group, the ones whose returns
 *   vary most (PODS's max-variance down-sampling, see `Groups.downsample`): play groups of
 *   `groupSize`, whose rollout is cheap, train on `keepPerGroup` of each, whose update costs.
 *   A game won once in 16 samples keeps its win. `null` (default): every episode;
 * - `replay`: the share of each iteration's seeds replaying recently lost training games, and
 *   how often one game is replayed at most (see {@link Replay}; default share 0: off);
 * - `microBatchTokens`: the most tokens (rows x width) one backward pass of the update takes:
 *   each thread's share of a minibatch is cut into micro-batches of this size whose gradients are
 *   summed before the step (gradient accumulation; verl's `ppo_micro_batch_size_per_gpu`, TRL's
 *   `gradient_accumulation_steps`). The step is the same up to float summation order; only the
 *   memory of a pass is bounded. On wasm, whose heap stops at 4 GB and never shrinks, a pass over
 *   16 rows of ~370 tokens grew it past 3.5 GB and a run aborted (decision 0010, session 19);
 *   default 4096;
 * - `exploredCredit`: how the exploration moves of a rollout with `rollout.exploreRate` (admissible
 *   actions played in place of the policy's sample) enter the policy loss: `signed` (by their
 *   advantage, as sampled actions) or `positive` (default: only where the advantage is positive,
 *   self-imitation's max(R - V, 0); a random move that did worse than expected says little about
 *   the policy's own choices). Their behaviour log-probs are the policy's own at the rollout
 *   temperature (a forward pass over the batch), so the first step's ratio is 1;
 * - `truncation`: what an episode cut by the turn or context budget is to the estimator:
 *   `terminal` (a failure: nothing follows its last turn, so its return is its rewards; the
 *   paper's "success within the exploration budget", and verl's end of sequence) or `bootstrap`
 *   (V of its last state stands for the rest, as for a time limit that is not part of the task).
 *   Episodes cut by fixed-turn batching (`rollout.turnsPerSlot`) always bootstrap;
 * - `importanceSampling`: the correction of the sampler/trainer mismatch (`ImportanceSampling`:
 *   `mode` off | tis | mis, `level` token | sequence | geometric, `cap`, `floor`; default off).
 *   When on, the trainer scores the batch itself (its `pi_old`) and weighs each token's policy
 *   gradient by its importance weight against the sampler;
 * - `seed`: all random streams (tasks, sampling, shuffling) derive from it;
 * - `checkpointEvery`: save every N iterations (0: never).
 *
 * @category codecs
 * @since 0.1.0
 */
export const Config = t.type({
  algorithm: Algorithm.Name,
  estimator: t.union([Estimator.Name, t.null]),
  estimatorOptions: t.record(t.string, t.unknown),
  seedsPerIteration: Numbers.PositiveInt,
  groupSize: Numbers.PositiveInt,
  rollout: Rollout.Options,
  policyLr: Numbers.Positive,
  criticLr: Numbers.Positive,
  warmupIterations: Numbers.NonNegativeInt,
  minLrRatio: Numbers.UnitInterval,
  decayIterations: Numbers.NonNegativeInt,
  ppoEpochs: Numbers.PositiveInt,
  minibatches: Numbers.PositiveInt,
  clipLow: Numbers.NonNegative,
  clipHigh: Numbers.NonNegative,
  dualClip: t.union([Numbers.refine('a number > 1', (n) => Number.isFinite(n) && n > 1), t.null]),
  aggregation: t.union([Aggregation.Mode, t.null]),
  valueClip: t.union([Numbers.Positive, t.null]),
  criticWarmup: Numbers.NonNegativeInt,
  entropyCoef: Numbers.NonNegative,
  valueCoef: Numbers.NonNegative,
  contextCoef: Numbers.NonNegative,
  maxGradNorm: Numbers.Positive,
  kl: t.union([Kl.Settings, t.null]),
  priorKlEvery: Numbers.NonNegativeInt,
  filterZeroVariance: t.boolean,
  oversample: Numbers.PositiveInt,
  keepPerGroup: t.union([Numbers.PositiveInt, t.null]),
  replay: Replay.Options,
  microBatchTokens: Numbers.PositiveInt,
  exploredCredit: t.keyof({ signed: null, positive: null }),
  truncation: Truncation,
  importanceSampling: ImportanceSampling.Settings,
  seed: Numbers.NonNegativeInt,
  checkpointEvery: Numbers.NonNegativeInt
})
/** @category models @since 0.1.0 */
export type Config = t.TypeOf<typeof Config>

/**
 * PPO with the paper's choices where they carry over (temperature 0.7, gamma = lambda = 1,
 * clip 0.2, dual clip 3, critic lr 10x the policy's), learning rates scaled for small models
 * trained from scratch (1e-4 / 1e-3), KL off (no reference model by default; set `placement`
 * and pass a reference policy to turn it on).
 *
 * @category constructors
 * @since 0.1.0
 */
export const defaultConfig: Config = {
  algorithm: 'ppo',
  estimator: null,
  estimatorOptions: {},
  seedsPerIteration: 8,
  groupSize: 4,
  rollout: Rollout.defaultOptions,
  policyLr: 1e-4,
  criticLr: 1e-3,
  warmupIterations: 0,
  minLrRatio: 1,
  decayIterations: 0,
  ppoEpochs: 1,
  minibatches: 1,
  clipLow: 0.2,
  clipHigh: 0.2,
  dualClip: 3,
  aggregation: null,
  valueClip: 0.5,
  criticWarmup: 0,
  entropyCoef: 0,
  valueCoef: 0,
  contextCoef: 0,
  priorKlEvery: 5,
  maxGradNorm: 1,
  kl: null,
  filterZeroVariance: false,
  oversample: 1,
  keepPerGroup: null,
  replay: Replay.off,
  microBatchTokens: 4096,
  exploredCredit: 'positive',
  truncation: 'terminal',
  importanceSampling: ImportanceSampling.off,
  seed: 0,
  checkpointEvery: 0
}

/**
 * A configuration with the algorithm's choices filled in: its estimator and estimator options
 * (the configuration's own options over them), its aggregation and its KL term, unless the
 * configuration sets them.
 *
 * @category models
 * @since 0.5.0
 */
export interface Resolved extends Omit<Config, 'estimator' | 'aggregation' | 'kl'> {
  readonly estimator: Estimator.Name
  readonly aggregation: Aggregation.Mode
  readonly kl: Kl.Settings
}

/**
 * The configuration as the trainer runs it (see {@link Resolved}).
 *
 * @example
 * import { Config } from '@mtrl/trainer-rl'
 * Config.resolve({ ...Config.defaultConfig, algorithm: 'grpo' }).aggregation // 'seq-mean-token-mean'
 *
 * @category constructors
 * @since 0.5.0
 */
export const resolve = (config: Config): Resolved => {
  const algorithm = Algorithm.registry[config.algorithm]
  return {
    ...config,
    estimator: config.estimator ?? algorithm.estimator,
    estimatorOptions: { ...algorithm.estimatorOptions, ...config.estimatorOptions },
    aggregation: config.aggregation ?? algorithm.aggregation,
    kl: config.kl ?? algorithm.kl
  }
}

/**
 * Checks what the codec cannot, before any work: the estimator's options decode (with the path
 * of a bad field under `estimatorOptions`), and a group-relative algorithm (GRPO, RLOO) has
 * groups of at least 2.
 *
 * @example
 * import { Config } from '@mtrl/trainer-rl'
 * Config.check({ ...Config.defaultConfig, estimatorOptions: { gamma: 2 } }) // Left: estimatorOptions.gamma: expected a number in [0, 1], got 2
 *
 * @category destructors
 * @since 0.1.0
 */
export const check = (config: Config): E.Either<Decode.DecodeError, Config> => {
  const algorithm = Algorithm.registry[config.algorithm]
  const resolved = resolve(config)
  const estimator = Estimator.configure(resolved.estimator)(resolved.estimatorOptions)
  if (E.isLeft(estimator))
    return E.left({
      ...estimator.left,
      subject: 'trainer configuration',
      issues: estimator.left.issues.map((i) => ({ ...i, path: i.path === '' ? 'estimatorOptions' : `estimatorOptions.${i.path}` }))
    })
  if (config.minLrRatio < 1 && config.decayIterations <= config.warmupIterations)
    return E.left({
      _tag: 'DecodeError',
      subject: 'trainer configuration',
      issues: [
        {
          path: 'decayIterations',
          expected: `more than warmupIterations (${config.warmupIterations}) when minLrRatio < 1 (the iteration where the decay reaches its floor)`,
          actual: String(config.decayIterations)
        }
      ]
    })
  if (config.oversample > 1 && !config.filterZeroVariance)
    return E.left({
      _tag: 'DecodeError',
      subject: 'trainer configuration',
      issues: [
        {
          path: 'oversample',
          expected: '1 unless filterZeroVariance is on (extra groups are played to replace the filtered ones)',
          actual: String(config.oversample)
        }
      ]
    })
  if (config.keepPerGroup !== null && (config.keepPerGroup > config.groupSize || (algorithm.grouped && config.keepPerGroup < 2)))
    return E.left({
      _tag: 'DecodeError',
      subject: 'trainer configuration',
      issues: [
        {
          path: 'keepPerGroup',
          expected: `at most groupSize (${config.groupSize})${algorithm.grouped ? ` and at least 2 for ${config.algorithm} (it compares the kept episodes of a group)` : ''}, or null`,
          actual: String(config.keepPerGroup)
        }
      ]
    })
  if (algorithm.grouped && config.groupSize < 2)
    return E.left({
      _tag: 'DecodeError',
      subject: 'trainer configuration',
      issues: [{ path: 'groupSize', expected: `at least 2 for ${config.algorithm} (it compares the episodes of a group)`, actual: String(config.groupSize) }]
    })
  return E.right(config)
}
