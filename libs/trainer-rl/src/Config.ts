/**
 * The configuration of an RL run: algorithm, rollout, optimisation, KL, critic, checkpoints.
 * A recipe's `trainer` section decodes into it.
 *
 * @since 0.1.0
 */
import { Estimator } from '@mtrl/advantages'
import { Rollout } from '@mtrl/rollout'
import * as t from 'io-ts'
import * as Aggregation from './Aggregation.js'
import * as Algorithm from './Algorithm.js'
import * as Kl from './Kl.js'
import { KlController } from './KlController.js'

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
 * - `ppoEpochs`, `minibatches`: passes over the batch and minibatches per pass;
 * - `clipLow`, `clipHigh`, `dualClip`, `aggregation`: the policy loss;
 * - `valueClip`: the value loss clip (`null`: none); `criticWarmup`: iterations of critic-only
 *   updates before the policy moves;
 * - `entropyCoef`: entropy bonus (subtracted from the loss); `maxGradNorm`: global-norm clip;
 * - `kl`: estimator, placement (`reward` | `loss` | `none`) and controller of the coefficient;
 * - `filterZeroVariance`: drop groups whose episodes all got the same return;
 * - `truncation`: what an episode cut by the turn or context budget is to the estimator:
 *   `terminal` (a failure: nothing follows its last turn, so its return is its rewards; the
 *   paper's "success within the exploration budget", and verl's end of sequence) or `bootstrap`
 *   (V of its last state stands for the rest, as for a time limit that is not part of the task).
 *   Episodes cut by fixed-turn batching (`rollout.turnsPerSlot`) always bootstrap;
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
  seedsPerIteration: t.number,
  groupSize: t.number,
  rollout: Rollout.Options,
  policyLr: t.number,
  criticLr: t.number,
  warmupIterations: t.number,
  ppoEpochs: t.number,
  minibatches: t.number,
  clipLow: t.number,
  clipHigh: t.number,
  dualClip: t.union([t.number, t.null]),
  aggregation: Aggregation.Mode,
  valueClip: t.union([t.number, t.null]),
  criticWarmup: t.number,
  entropyCoef: t.number,
  maxGradNorm: t.number,
  kl: t.type({ estimator: Kl.Estimator, placement: Kl.Placement, controller: KlController }),
  filterZeroVariance: t.boolean,
  truncation: Truncation,
  seed: t.number,
  checkpointEvery: t.number
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
  ppoEpochs: 1,
  minibatches: 1,
  clipLow: 0.2,
  clipHigh: 0.2,
  dualClip: 3,
  aggregation: 'token-mean',
  valueClip: 0.5,
  criticWarmup: 0,
  entropyCoef: 0,
  maxGradNorm: 1,
  kl: { estimator: 'k3', placement: 'none', controller: { _tag: 'fixed', coef: 0.001 } },
  filterZeroVariance: false,
  truncation: 'terminal',
  seed: 0,
  checkpointEvery: 0
}
