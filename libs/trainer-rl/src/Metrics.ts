/**
 * The metrics of one RL iteration, as data with namespaced names (the app logs them):
 * `loss/*`, `kl/*`, `clip/*`, `entropy/*`, `grad/*`, `value/*`, `advantage/*`, `episode/*`,
 * `batch/*`, `replay/*`, `rollout/*`, `logprob/*`, `mismatch/*`, `lr/*`, `perf/*`, `time/*`. Undefined quantities (no critic, no update) are NaN.
 *
 * - `logprob/sampler_trainer_gap`: mean |sampler log-prob - trainer log-prob| over sampled action
 *   tokens (exploration moves have no sampler log-probs) (0 up to float error when sampling and scoring agree; grows with top-k / top-p sampling);
 * - `mismatch/kl`, `mismatch/max_ratio`, `mismatch/corrected_fraction`: when the trainer scored
 *   the batch itself (importance sampling on, top-k / top-p, exploration moves): the KL from the
 *   sampler to the trainer (k3, mean over sampled tokens), the largest token ratio
 *   `pi_old / pi_sampler`, and the share of tokens whose weight the correction truncated or masked
 *   (`ImportanceSampling`); NaN otherwise. `logprob/sampler_trainer_gap` is then over the whole batch;
 * - `kl/mean`, `kl/coef`: mean per-token KL to the reference (the configured estimator) before
 *   the update, and its coefficient; NaN when no KL term is on (`kl.placement: none`);
 * - `kl/prior`: drift from the prior: mean k3 KL of the policy that played the iteration to the
 *   reference policy (the policy as the RL stage began), on the iteration's action tokens,
 *   whether or not a KL term is on (NaN without a reference);
 * - `kl/policy_change`: mean (logp_old - logp) during the update (approx-KL to the rollout
 *   policy, verl's `ppo_kl`);
 * - `advantage/mean`, `advantage/std`: over action tokens (sample std);
 * - `episode/explored_rate`: the share of the iteration's turns that were exploration moves
 *   (`rollout.exploreRate`), whose episodes the `episode/*` rates include;
 * - `perf/tokens_per_s`: generated tokens per second of the rollout; `perf/update_tokens_per_s`:
 *   batch tokens times PPO epochs per second of the update;
 * - `value/explained_variance`: 1 - Var(R - V) / Var(R) over action tokens;
 * - `lr/policy`: the policy's learning rate of the iteration's update (`Config.minLrRatio`);
 * - `replay/games`: how many of the iteration's games replay a lost one (`Config.replay`);
 *   `replay/success_rate`: the share of their episodes won (NaN when none). With replay on,
 *   `episode/success_rate` is over fresh and replayed games together, so it reads lower than
 *   the policy's success on fresh games;
 * - `rollout/staleness`: how many updates the weights that played the iteration's episodes are
 *   behind the ones the iteration updates (0 unless `maxStaleness` plays ahead);
 * - `time/rollout_s`: the rollout's own time; `time/wait_s`: how long the iteration waited for
 *   it (the same when nothing is played ahead; less, down to 0, when the rollout ran during the
 *   update before); `time/update_s`: from the episodes' arrival to the end of the update.
 *
 * @since 0.1.0
 */

/**
 * @category models
 * @since 0.1.0
 */
export interface Metrics {
  readonly iteration: number
  readonly 'loss/policy': number
  readonly 'loss/value': number
  readonly 'loss/context': number
  readonly 'kl/mean': number
  readonly 'kl/coef': number
  readonly 'kl/prior': number
  readonly 'kl/policy_change': number
  readonly 'clip/fraction': number
  readonly 'clip/value_fraction': number
  readonly 'entropy/mean': number
  readonly 'grad/policy_norm': number
  readonly 'grad/critic_norm': number
  readonly 'value/explained_variance': number
  readonly 'advantage/mean': number
  readonly 'advantage/std': number
  readonly 'episode/success_rate': number
  readonly 'episode/return': number
  readonly 'episode/turns': number
  readonly 'episode/invalid_rate': number
  readonly 'episode/format_error_rate': number
  readonly 'episode/truncated_rate': number
  readonly 'episode/action_hacking_rate': number
  readonly 'episode/explored_rate': number
  readonly 'batch/samples': number
  readonly 'batch/filtered_episodes': number
  readonly 'replay/games': number
  readonly 'replay/success_rate': number
  readonly 'logprob/sampler_trainer_gap': number
  readonly 'mismatch/kl': number
  readonly 'mismatch/max_ratio': number
  readonly 'mismatch/corrected_fraction': number
  readonly 'rollout/staleness': number
  readonly 'lr/policy': number
  readonly 'perf/tokens_per_s': number
  readonly 'perf/update_tokens_per_s': number
  readonly 'time/rollout_s': number
  readonly 'time/wait_s': number
  readonly 'time/update_s': number
}

/**
 * The names of the timing metrics (they differ between otherwise identical runs).
 *
 * @category models
 * @since 0.1.0
 */
export const timing: ReadonlyArray<string> = ['perf/tokens_per_s', 'perf/update_tokens_per_s', 'time/rollout_s', 'time/wait_s', 'time/update_s']

/**
 * `1 - Var(returns - values) / Var(returns)` over the positions where `mask` is 1 (NaN when the
 * returns do not vary).
 *
 * @category destructors
 * @since 0.1.0
 */
export const explainedVariance = (values: Float32Array, returns: Float32Array, mask: Float32Array): number => {
  let n = 0
  let sr = 0
  let sd = 0
  mask.forEach((m, i) => {
    if (m !== 1) return
    n++
    sr += returns[i]!
    sd += returns[i]! - values[i]!
  })
  if (n < 2) return Number.NaN
  const mr = sr / n
  const md = sd / n
  let vr = 0
  let vd = 0
  mask.forEach((m, i) => {
    if (m !== 1) return
    vr += (returns[i]! - mr) ** 2
    vd += (returns[i]! - values[i]! - md) ** 2
  })
  return vr === 0 ? Number.NaN : 1 - vd / vr
}
