/**
 * The configuration of an RL run, nested by the stage of the iteration that reads it
 * (`Trainer.iterate`: collect -> select -> score -> estimate -> optimise -> report):
 *
 * | field | read by | what |
 * |---|---|---|
 * | `algorithm` | all | the algorithm (`Algorithm.registry`): its estimator, loss, aggregation, KL term, critic |
 * | `budget` | collect | {@link Budget}: task seeds per iteration and episodes per seed |
 * | `rollout` | collect | how episodes are played (`Rollout.Options`) |
 * | `replay` | collect | replays of recently lost training games (`Replay.Options`) |
 * | `maxStaleness` | collect | how many updates the next iterations' episodes may be played ahead of (0: none) |
 * | `selection` | collect, select | {@link Selection}: which groups and episodes the update takes |
 * | `importanceSampling` | score, optimise | the sampler/trainer mismatch's correction (`ImportanceSampling.Settings`) |
 * | `kl` | score, estimate, optimise | the KL term (`Kl.Settings`); null: the algorithm's |
 * | `priorKlEvery` | score | how often the drift from the stage's start is measured |
 * | `advantage` | estimate | {@link Advantage}: the estimator, its options, what a cut episode is |
 * | `loss` | optimise | {@link Loss}: the policy loss's clip, aggregation and extra terms |
 * | `policy` | optimise | {@link PolicyOptimiser}: the policy's learning rate and its schedule |
 * | `critic` | optimise | {@link CriticSettings}: the critic's learning rate, warm-up and value loss |
 * | `update` | optimise | {@link Update}: passes, minibatches, micro-batches, gradient clip, recompute |
 * | `seed`, `checkpointEvery` | the trainer | random streams; checkpoint cadence |
 *
 * Every check is in these codecs: a field's own bounds in its codec, and the rules that bind
 * fields to each other (`Decode.withRules`) in the slice that holds them, or in {@link Config}
 * when they cross slices; each broken rule names its field's path. `Trainer.make` decodes the
 * configuration it is given with {@link Config}, so a configuration built in code is checked the
 * same way as a recipe's.
 *
 * @since 0.1.0
 */
import { Estimator } from '@mtrl/advantages'
import { Decode, Numbers } from '@mtrl/core'
import { Rollout } from '@mtrl/rollout'
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import * as Aggregation from './Aggregation.js'
import * as Algorithm from './Algorithm.js'
import * as ImportanceSampling from './ImportanceSampling.js'
import * as Kl from './Kl.js'
import * as PolicyLoss from './PolicyLoss.js'
import * as Replay from './Replay.js'

/**
 * See `truncation` in {@link Advantage}.
 *
 * @category codecs
 * @since 0.2.0
 */
export const Truncation = t.keyof({ terminal: null, bootstrap: null })
/** @category models @since 0.2.0 */
export type Truncation = t.TypeOf<typeof Truncation>

/**
 * What one iteration plays: `seedsPerIteration` task seeds x `groupSize` episodes of each
 * (`groupSize` >= 2 for the group-relative algorithms: GRPO, Dr. GRPO, RLOO).
 *
 * @category codecs
 * @since 0.6.0
 */
export const Budget = t.type({ seedsPerIteration: Numbers.PositiveInt, groupSize: Numbers.PositiveInt })
/** @category models @since 0.6.0 */
export type Budget = t.TypeOf<typeof Budget>

/**
 * Which of the played episodes the update takes:
 * - `filterZeroVariance`: drop groups whose episodes all got the same return;
 * - `oversample`: with `filterZeroVariance`, play `oversample` x `seedsPerIteration` groups and
 *   update on the first `seedsPerIteration` that are kept (DAPO's dynamic sampling, verl's
 *   `filter_groups`, in one rollout): the update's size stays, the share of it that carries
 *   signal grows. 1 (default): play what the update takes;
 * - `keepPerGroup`: update on at most this many episodes of each group, the ones whose returns
 *   vary most (PODS's max-variance down-sampling, see `Groups.downsample`): play groups of
 *   `groupSize`, whose rollout is cheap, train on `keepPerGroup` of each, whose update costs.
 *   A game won once in 16 samples keeps its win. `null` (default): every episode.
 *
 * @category codecs
 * @since 0.6.0
 */
const selectionFields = { filterZeroVariance: t.boolean, oversample: Numbers.PositiveInt, keepPerGroup: t.union([Numbers.PositiveInt, t.null]) }
export const Selection = Decode.withRules(t.type(selectionFields), (s) =>
  s.oversample > 1 && !s.filterZeroVariance
    ? [{ path: ['oversample'], expected: '1 unless filterZeroVariance is on (extra groups are played to replace the filtered ones)', actual: s.oversample }]
    : []
)
/** @category models @since 0.6.0 */
export type Selection = t.TypeOf<typeof Selection>

/**
 * The advantage estimator:
 * - `estimator`: `@mtrl/advantages`' estimator (null: the algorithm's); `options`: its partial
 *   options over the algorithm's, e.g. `{ gamma: 1, lambda: 0.95 }` (checked by the estimator's
 *   own codec, with the field's path);
 * - `truncation`: what an episode cut by the turn or context budget is to the estimator:
 *   `terminal` (a failure: nothing follows its last turn, so its return is its rewards; the
 *   paper's "success within the exploration budget", and verl's end of sequence) or `bootstrap`
 *   (V of its last state stands for the rest, as for a time limit that is not part of the task).
 *   Episodes cut by fixed-turn batching (`rollout.turnsPerSlot`) always bootstrap.
 *
 * @category codecs
 * @since 0.6.0
 */
export const Advantage = t.type({ estimator: t.union([Estimator.Name, t.null]), options: t.record(t.string, t.unknown), truncation: Truncation })
/** @category models @since 0.6.0 */
export type Advantage = t.TypeOf<typeof Advantage>

/**
 * The policy loss:
 * - `policyLoss`: a name of `PolicyLoss.registry` (`ppo`, `policyGradient`, `gspo`, `cispo`;
 *   null: the algorithm's); `options`: its options over the algorithm's, e.g.
 *   `{ clipHigh: 0.28 }` or `{ dualClip: null }` (checked by the loss's own codec, with the
 *   field's path); `aggregation`: how per-token terms become the loss (`Aggregation.Mode`; null:
 *   the algorithm's);
 * - `entropyCoef`: entropy bonus (subtracted from the loss);
 * - `contextCoef`: weight of an auxiliary next-token loss on the episodes' own prompt and
 *   observation tokens (what the environment said; no expert data), at the rollout temperature:
 *   self-supervised, like SFT's context loss (decision 0005); 0 turns it off;
 * - `exploredCredit`: how the exploration moves of a rollout with `rollout.exploreRate`
 *   (admissible actions played in place of the policy's sample) enter the policy loss: `signed`
 *   (by their advantage, as sampled actions) or `positive` (default: only where the advantage is
 *   positive, self-imitation's max(R - V, 0)). Their behaviour log-probs are the policy's own at
 *   the rollout temperature, so the first step's ratio is 1.
 *
 * @category codecs
 * @since 0.6.0
 */
export const Loss = t.type({
  policyLoss: t.union([PolicyLoss.Name, t.null]),
  options: t.record(t.string, t.unknown),
  aggregation: t.union([Aggregation.Mode, t.null]),
  entropyCoef: Numbers.NonNegative,
  contextCoef: Numbers.NonNegative,
  exploredCredit: t.keyof({ signed: null, positive: null })
})
/** @category models @since 0.6.0 */
export type Loss = t.TypeOf<typeof Loss>

/**
 * The policy's Adam learning rate `lr` and its schedule: `warmupIterations` of linear warm-up,
 * then cosine decay to `minLrRatio` x `lr` at iteration `decayIterations` (`@mtrl/optim`'s
 * `Schedule`, as SFT's; TRL and verl decay the actor's rate too). `minLrRatio` 1 (the default)
 * keeps it constant; a recipe's RL stage fills `decayIterations` with its `iterations` unless set.
 *
 * @category codecs
 * @since 0.6.0
 */
const policyOptimiserFields = {
  lr: Numbers.Positive,
  warmupIterations: Numbers.NonNegativeInt,
  minLrRatio: Numbers.UnitInterval,
  decayIterations: Numbers.NonNegativeInt
}
export const PolicyOptimiser = Decode.withRules(t.type(policyOptimiserFields), (p) =>
  p.minLrRatio < 1 && p.decayIterations <= p.warmupIterations
    ? [
        {
          path: ['decayIterations'],
          expected: `more than warmupIterations (${p.warmupIterations}) when minLrRatio < 1 (the iteration where the decay reaches its floor)`,
          actual: p.decayIterations
        }
      ]
    : []
)
/** @category models @since 0.6.0 */
export type PolicyOptimiser = t.TypeOf<typeof PolicyOptimiser>

/**
 * The critic (algorithms with one: PPO): its Adam learning rate `lr` (constant: it tracks a
 * moving policy; the paper's is 10x the policy's); `warmup`: iterations of critic-only updates
 * before the policy moves (verl's `critic_warmup`); `valueClip`: the value loss's clip (null:
 * none); `valueCoef`: with a critic that shares the policy's trunk, the weight of the value loss
 * in the policy's own loss, so that its gradient also trains the trunk (at the policy's learning
 * rate; the head still steps at `lr`), as a policy-and-value network; 0 (default): the value loss
 * trains the head only. Ignored with a separate critic.
 *
 * @category codecs
 * @since 0.6.0
 */
export const CriticSettings = t.type({
  lr: Numbers.Positive,
  warmup: Numbers.NonNegativeInt,
  valueClip: t.union([Numbers.Positive, t.null]),
  valueCoef: Numbers.NonNegative
})
/** @category models @since 0.6.0 */
export type CriticSettings = t.TypeOf<typeof CriticSettings>

/**
 * How the batch is passed over: `epochs` passes (PPO's epochs), `minibatches` per pass, each
 * thread's share of a minibatch cut into micro-batches of at most `microBatchTokens` tokens
 * (rows x width) whose gradients are summed before the step (gradient accumulation; verl's
 * `ppo_micro_batch_size_per_gpu`, TRL's `gradient_accumulation_steps`; the step is the same up to
 * float summation order, only the memory of a pass is bounded: on wasm, whose heap stops at 4 GB
 * and never shrinks, a pass over 16 rows of ~370 tokens grew it past 3.5 GB, decision 0010;
 * default 4096); `maxGradNorm`: the global-norm clip of each step; `recompute`: gradient
 * checkpointing of the policy's scoring (`Scoring.Options.recompute` of @mtrl/policy: each layer
 * keeps only its input for the backward pass and is recomputed there; the same step, less
 * memory, one more forward pass; default false).
 *
 * @category codecs
 * @since 0.6.0
 */
export const Update = t.type({
  epochs: Numbers.PositiveInt,
  minibatches: Numbers.PositiveInt,
  microBatchTokens: Numbers.PositiveInt,
  maxGradNorm: Numbers.Positive,
  recompute: t.boolean
})
/** @category models @since 0.6.0 */
export type Update = t.TypeOf<typeof Update>

/**
 * The configuration's fields (the table above), without the rules that cross slices.
 *
 * - `kl`: estimator, placement (`reward` | `loss` | `none`) and controller of the coefficient
 *   (`Kl.Settings`; null: the algorithm's, e.g. GRPO's k3 loss at 0.04, REINFORCE++'s k1 reward
 *   penalty at 0.01; `Kl.none` turns a KL term off);
 * - `priorKlEvery`: measure `kl/prior` (the drift from the stage's starting policy, a forward
 *   pass of the frozen reference over the whole batch, in the trainer's thread) every N
 *   iterations (NaN in between; 0: never; default 5: measured every iteration it was about a
 *   third of a critic-free iteration's update time on wasm with 2 replicas, decision 0010). A KL
 *   term in the reward or loss needs the reference every iteration and ignores it;
 * - `replay`: the share of each iteration's seeds replaying recently lost training games, and
 *   how often one game is replayed at most (see {@link Replay}; default share 0: off);
 * - `maxStaleness`: play up to N iterations' episodes ahead, while the update runs, with the
 *   weights of the moment (default 0: each iteration plays, then updates). With 1, iteration
 *   k + 1's episodes are played by the weights before iteration k's update, on a player that
 *   computes off the trainer's thread (`Setup.play`: `Threads` of `@mtrl/rollout-queue` with the
 *   caller waiting, or its queue's workers); the update's `pi_old` is the sampler's log-probs
 *   (the behaviour policy's, clipped against as in several PPO epochs), or with
 *   `importanceSampling` on, the trainer's own at the current weights corrected to the sampler's
 *   (TIS/MIS, decoupled PPO);
 * - `importanceSampling`: `mode` off | tis | mis, `level` token | sequence | geometric, `cap`,
 *   `floor` (default off). When on, the trainer scores the batch itself (its `pi_old`) and weighs
 *   each token's policy gradient by its importance weight against the sampler;
 * - `seed`: all random streams (tasks, sampling, shuffling) derive from it;
 * - `checkpointEvery`: save every N iterations (0: never).
 *
 * @category codecs
 * @since 0.6.0
 */
export const Fields = t.type({
  algorithm: Algorithm.Name,
  budget: Budget,
  rollout: Rollout.Options,
  replay: Replay.Options,
  selection: Selection,
  importanceSampling: ImportanceSampling.Settings,
  kl: t.union([Kl.Settings, t.null]),
  priorKlEvery: Numbers.NonNegativeInt,
  maxStaleness: Numbers.NonNegativeInt,
  advantage: Advantage,
  loss: Loss,
  policy: PolicyOptimiser,
  critic: CriticSettings,
  update: Update,
  seed: Numbers.NonNegativeInt,
  checkpointEvery: Numbers.NonNegativeInt
})

/** A registry's option check (`Estimator.configure`, `PolicyLoss.configure`) as violations at `path` under the configuration. */
const optionViolations = (path: ReadonlyArray<string>, options: Readonly<Record<string, unknown>>, checked: E.Either<Decode.DecodeError, unknown>) =>
  E.isRight(checked)
    ? []
    : checked.left.issues.map((i) => ({
        path: [...path, ...(i.path === '' ? [] : i.path.split('.'))],
        expected: i.message ?? i.expected,
        ...(i.message === undefined ? {} : { message: i.message }),
        actual: i.path === '' ? options : i.path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], options)
      }))

/**
 * What a run's stage changes, as codecs: the algorithm, the KL term, `priorKlEvery`,
 * `maxStaleness`, and any part of each slice but `rollout` (each slice's fields optional; the
 * rules are checked when the whole configuration decodes). A recipe's RL stage is these fields
 * (`override` applies them).
 *
 * @category codecs
 * @since 0.7.0
 */
export const stageProps = {
  algorithm: Algorithm.Name,
  kl: Fields.props.kl,
  priorKlEvery: Numbers.NonNegativeInt,
  maxStaleness: Numbers.NonNegativeInt,
  budget: t.partial(Budget.props),
  replay: t.partial(Replay.Options.props),
  selection: t.partial(selectionFields),
  importanceSampling: t.partial(ImportanceSampling.Settings.props),
  advantage: t.partial(Advantage.props),
  loss: t.partial(Loss.props),
  policy: t.partial(policyOptimiserFields),
  critic: t.partial(CriticSettings.props),
  update: t.partial(Update.props)
}

/** The rules that cross slices: the algorithm's needs of the budget and selection, the estimator's and the policy loss's options, a positive temperature. */
const crossRules = (config: t.TypeOf<typeof Fields>): ReadonlyArray<Decode.Violation> => {
  const algorithm = Algorithm.registry[config.algorithm]
  const { groupSize } = config.budget
  const keep = config.selection.keepPerGroup
  const estimator = Estimator.configure(config.advantage.estimator ?? algorithm.estimator)({ ...algorithm.estimatorOptions, ...config.advantage.options })
  const lossOptions = { ...algorithm.policyLossOptions, ...config.loss.options }
  const policyLoss = PolicyLoss.configure(config.loss.policyLoss ?? algorithm.policyLoss)(lossOptions)
  return [
    ...(algorithm.grouped && groupSize < 2
      ? [{ path: ['budget', 'groupSize'], expected: `at least 2 for ${config.algorithm} (it compares the episodes of a group)`, actual: groupSize }]
      : []),
    ...(keep !== null && (keep > groupSize || (algorithm.grouped && keep < 2))
      ? [
          {
            path: ['selection', 'keepPerGroup'],
            expected: `at most budget.groupSize (${groupSize})${algorithm.grouped ? ` and at least 2 for ${config.algorithm} (it compares the kept episodes of a group)` : ''}, or null`,
            actual: keep
          }
        ]
      : []),
    ...optionViolations(['advantage', 'options'], config.advantage.options, estimator),
    ...optionViolations(['loss', 'options'], lossOptions, policyLoss),
    ...(config.rollout.temperature > 0
      ? []
      : [{ path: ['rollout', 'temperature'], expected: 'a number > 0 (the trainer takes its log-prob ratios at it)', actual: config.rollout.temperature }])
  ]
}

/**
 * The configuration: {@link Fields} with the rules that cross slices. Decode with
 * `Decode.decodeStrict('trainer configuration', Config)`.
 *
 * @example
 * import { Decode } from '@mtrl/core'
 * import { Config } from '@mtrl/trainer-rl'
 * Decode.decode('trainer configuration', Config.Config)({ ...Config.defaultConfig, advantage: { ...Config.defaultConfig.advantage, options: { gamma: 2 } } })
 * // Left: advantage.options.gamma: expected a number in [0, 1], got 2
 *
 * @category codecs
 * @since 0.1.0
 */
export const Config = Decode.withRules(Fields, crossRules)
/** @category models @since 0.1.0 */
export type Config = t.TypeOf<typeof Config>

/**
 * PPO with the paper's choices where they carry over (temperature 0.7, gamma = lambda = 1,
 * clip 0.2, dual clip 3, critic lr 10x the policy's), learning rates scaled for small models
 * trained from scratch (1e-4 / 1e-3), no KL term (PPO's; no reference model by default).
 *
 * @category constructors
 * @since 0.1.0
 */
export const defaultConfig: Config = {
  algorithm: 'ppo',
  budget: { seedsPerIteration: 8, groupSize: 4 },
  rollout: Rollout.defaultOptions,
  replay: Replay.off,
  selection: { filterZeroVariance: false, oversample: 1, keepPerGroup: null },
  importanceSampling: ImportanceSampling.off,
  kl: null,
  priorKlEvery: 5,
  maxStaleness: 0,
  advantage: { estimator: null, options: {}, truncation: 'terminal' },
  loss: { policyLoss: null, options: {}, aggregation: null, entropyCoef: 0, contextCoef: 0, exploredCredit: 'positive' },
  policy: { lr: 1e-4, warmupIterations: 0, minLrRatio: 1, decayIterations: 0 },
  critic: { lr: 1e-3, warmup: 0, valueClip: 0.5, valueCoef: 0 },
  update: { epochs: 1, minibatches: 1, microBatchTokens: 4096, maxGradNorm: 1, recompute: false },
  seed: 0,
  checkpointEvery: 0
}

/**
 * A configuration with the algorithm's choices filled in: its estimator and estimator options
 * (the configuration's own options over them), its policy loss and loss options (likewise), its
 * aggregation and its KL term, unless the configuration sets them.
 *
 * @category models
 * @since 0.5.0
 */
export interface Resolved extends Omit<Config, 'advantage' | 'loss' | 'kl'> {
  readonly advantage: Advantage & { readonly estimator: Estimator.Name }
  readonly loss: Loss & { readonly aggregation: Aggregation.Mode; readonly policyLoss: PolicyLoss.Name }
  readonly kl: Kl.Settings
}

/**
 * The configuration as the trainer runs it (see {@link Resolved}).
 *
 * @example
 * import { Config } from '@mtrl/trainer-rl'
 * Config.resolve({ ...Config.defaultConfig, algorithm: 'grpo' }).loss.aggregation // 'seq-mean-token-mean'
 *
 * @category constructors
 * @since 0.5.0
 */
export const resolve = (config: Config): Resolved => {
  const algorithm = Algorithm.registry[config.algorithm]
  return {
    ...config,
    advantage: {
      ...config.advantage,
      estimator: config.advantage.estimator ?? algorithm.estimator,
      options: { ...algorithm.estimatorOptions, ...config.advantage.options }
    },
    loss: {
      ...config.loss,
      policyLoss: config.loss.policyLoss ?? algorithm.policyLoss,
      options: { ...algorithm.policyLossOptions, ...config.loss.options },
      aggregation: config.loss.aggregation ?? algorithm.aggregation
    },
    kl: config.kl ?? algorithm.kl
  }
}

const slices = ['budget', 'rollout', 'replay', 'selection', 'importanceSampling', 'advantage', 'loss', 'policy', 'critic', 'update'] as const
type Slice = (typeof slices)[number]

/**
 * Changes to a configuration: any top-level field, and any part of a slice (the slice's other
 * fields stay). `kl` is replaced whole (null: the algorithm's).
 *
 * @category models
 * @since 0.6.0
 */
export type Overrides = Partial<Omit<Config, Slice>> & { readonly [K in Slice]?: Partial<Config[K]> }

/**
 * The configuration with the overrides applied, slice by slice (not checked: `Trainer.make`
 * and the recipe decode it with {@link Config}).
 *
 * @example
 * import { Config } from '@mtrl/trainer-rl'
 * const grpo = Config.override({ algorithm: 'grpo', policy: { lr: 3e-4 } })(Config.defaultConfig)
 * grpo.policy.minLrRatio // 1, the default's
 *
 * @category combinators
 * @since 0.6.0
 */
export const override =
  (overrides: Overrides) =>
  (config: Config): Config => {
    const merged: Record<string, unknown> = { ...config, ...overrides }
    for (const slice of slices) if (overrides[slice] !== undefined) merged[slice] = { ...config[slice], ...overrides[slice] }
    return merged as Config
  }

/**
 * {@link defaultConfig} with the overrides applied (see {@link override}).
 *
 * @example
 * import { Config } from '@mtrl/trainer-rl'
 * Config.make({ budget: { groupSize: 2 } }).budget // { seedsPerIteration: 8, groupSize: 2 }
 *
 * @category constructors
 * @since 0.6.0
 */
export const make = (overrides: Overrides): Config => override(overrides)(defaultConfig)
