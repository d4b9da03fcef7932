/**
 * The RL algorithms of the paper's comparison (Wang & Ammanabrolu 2025, Table 10) as their papers
 * define them, and the named variants users of verl and TRL ask for, as a closed registry: which
 * advantage estimator (and its options), which policy loss, how the loss aggregates, which KL
 * term, whether a critic is trained. A new algorithm is a compile error until it is registered.
 *
 * | name | advantages (`@mtrl/advantages`) | policy loss | aggregation | KL term | critic |
 * |---|---|---|---|---|---|
 * | `ppo` | `gae` (token level, skipping observations) | {@link Ppo} (dual clip) | token-mean | none | yes |
 * | `grpo` | `grpo` (group mean / sample std) | {@link PolicyGradient} | seq-mean-token-mean | k3 in the loss, beta 0.04 | no |
 * | `grpo-token-mean` | `grpo` | {@link PolicyGradient} | token-mean | k3 in the loss, beta 0.04 | no |
 * | `dr-grpo` | `grpo` without the std (`normalizeByStd: false`) | {@link PolicyGradient} | seq-mean-token-sum-norm | none | no |
 * | `rloo` | `rloo` (leave-one-out) | {@link PolicyGradient} | token-mean | none | no |
 * | `reinforce++` | `reinforcePlusPlus` (returns, normalised over the batch) | {@link PolicyGradient} | token-mean | k1 in the reward, beta 0.01 | no |
 * | `gspo` | `grpo` | {@link Gspo} (sequence ratio, clip 3e-4 / 4e-4) | seq-mean-token-mean | none | no |
 * | `cispo` | `grpo` | {@link Cispo} (clipped IS weight, no lower bound, upper 1.2) | token-mean | none | no |
 *
 * - GRPO is DeepSeekMath's (Shao et al. 2024, eq. 3): per-sequence mean of the per-token
 *   objective, then the mean over the group, with the KL to the reference as a loss term (the
 *   unbiased k3 estimator) at beta 0.04;
 * - `grpo-token-mean` averages over all tokens of the batch instead (verl's default
 *   `loss_agg_mode`, DAPO's token-level loss);
 * - Dr. GRPO (Liu et al. 2025) drops the std division and the per-sequence length division (a
 *   constant normaliser: the batch's width) and the KL term;
 * - REINFORCE++ (Hu 2025) puts a per-token KL penalty `-beta (log pi_old - log pi_ref)` in the
 *   reward before the returns (OpenRLHF's `init_kl_coef` 0.01), then normalises the advantages
 *   over the whole batch;
 * - GSPO (Zheng et al. 2025) clips the sequence's length-normalised ratio, on GRPO's advantages,
 *   averaged per sequence then over the group, without a KL term (the paper's and verl's example);
 * - CISPO (MiniMax-M1, 2025) weighs REINFORCE's gradient by the clipped importance ratio, on
 *   group-relative advantages, a token mean over the batch (the paper's), without a KL term.
 *
 * The policy loss is a name of `PolicyLoss.registry` and its option overrides. A configuration's
 * `advantage.estimator`, `advantage.options`, `loss.policyLoss`, `loss.options`,
 * `loss.aggregation` and `kl` override the algorithm's (`Config.resolve`), e.g. REINFORCE++
 * without its KL term: `"kl": Kl.none`.
 *
 * @since 0.1.0
 */
import type { Estimator } from '@mtrl/advantages'
import * as t from 'io-ts'
import type * as Aggregation from './AggregationMode.js'
import * as Kl from './KlSettings.js'
import type * as PolicyLoss from './PolicyLoss.js'

/**
 * @category codecs
 * @since 0.1.0
 */
export const Name = t.keyof({ ppo: null, grpo: null, 'grpo-token-mean': null, 'dr-grpo': null, rloo: null, 'reinforce++': null, gspo: null, cispo: null })
/** @category models @since 0.1.0 */
export type Name = t.TypeOf<typeof Name>

/**
 * @category models
 * @since 0.1.0
 */
export interface Algorithm {
  readonly name: Name
  readonly estimator: Estimator.Name
  /** Options of the estimator this algorithm fixes (a configuration's own override them). */
  readonly estimatorOptions: Readonly<Record<string, unknown>>
  /** The policy loss (`PolicyLoss.registry`) and the options this algorithm fixes (a configuration's own `loss.options` override them). */
  readonly policyLoss: PolicyLoss.Name
  readonly policyLossOptions: Readonly<Record<string, unknown>>
  readonly aggregation: Aggregation.Mode
  readonly kl: Kl.Settings
  readonly critic: boolean
  /** Needs groups of several episodes per task. */
  readonly grouped: boolean
}

/** DeepSeekMath's KL term: the k3 estimator in the loss, beta 0.04. */
const grpoKl: Kl.Settings = { estimator: 'k3', placement: 'loss', controller: { _tag: 'fixed', coef: 0.04 } }

/**
 * @category constructors
 * @since 0.1.0
 */
export const registry: { readonly [K in Name]: Algorithm } = {
  ppo: {
    name: 'ppo',
    estimator: 'gae',
    estimatorOptions: {},
    policyLoss: 'ppo',
    policyLossOptions: {},
    aggregation: 'token-mean',
    kl: Kl.none,
    critic: true,
    grouped: false
  },
  grpo: {
    name: 'grpo',
    estimator: 'grpo',
    estimatorOptions: {},
    policyLoss: 'policyGradient',
    policyLossOptions: {},
    aggregation: 'seq-mean-token-mean',
    kl: grpoKl,
    critic: false,
    grouped: true
  },
  'grpo-token-mean': {
    name: 'grpo-token-mean',
    estimator: 'grpo',
    estimatorOptions: {},
    policyLoss: 'policyGradient',
    policyLossOptions: {},
    aggregation: 'token-mean',
    kl: grpoKl,
    critic: false,
    grouped: true
  },
  'dr-grpo': {
    name: 'dr-grpo',
    estimator: 'grpo',
    estimatorOptions: { normalizeByStd: false },
    policyLoss: 'policyGradient',
    policyLossOptions: {},
    aggregation: 'seq-mean-token-sum-norm',
    kl: Kl.none,
    critic: false,
    grouped: true
  },
  rloo: {
    name: 'rloo',
    estimator: 'rloo',
    estimatorOptions: {},
    policyLoss: 'policyGradient',
    policyLossOptions: {},
    aggregation: 'token-mean',
    kl: Kl.none,
    critic: false,
    grouped: true
  },
  'reinforce++': {
    name: 'reinforce++',
    estimator: 'reinforcePlusPlus',
    estimatorOptions: {},
    policyLoss: 'policyGradient',
    policyLossOptions: {},
    aggregation: 'token-mean',
    kl: { estimator: 'k1', placement: 'reward', controller: { _tag: 'fixed', coef: 0.01 } },
    critic: false,
    grouped: false
  },
  gspo: {
    name: 'gspo',
    estimator: 'grpo',
    estimatorOptions: {},
    policyLoss: 'gspo',
    policyLossOptions: {},
    aggregation: 'seq-mean-token-mean',
    kl: Kl.none,
    critic: false,
    grouped: true
  },
  cispo: {
    name: 'cispo',
    estimator: 'grpo',
    estimatorOptions: {},
    policyLoss: 'cispo',
    policyLossOptions: {},
    aggregation: 'token-mean',
    kl: Kl.none,
    critic: false,
    grouped: true
  }
}

/** @category constructors @since 0.1.0 */
export const names: ReadonlyArray<Name> = Object.keys(Name.keys) as ReadonlyArray<Name>
