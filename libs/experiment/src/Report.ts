/**
 * `report.html` of a run: learning curves (success rate, return, KL, entropy, losses, tokens/s,
 * SFT loss) and the evaluation table, drawn with Chart.js, which is inlined so the page opens
 * offline. Reads the records of `metrics.jsonl` (`kind`: `eval`, `sft`, `rl`).
 *
 * @since 0.1.0
 */
import { escape, finite, page } from './internal/page.js'
import type { RunDir } from './RunDir.js'

/**
 * Curves drawn for RL stages: a title and the metrics it draws (a chart with no finite value is left out).
 *
 * @category constants
 * @since 0.1.0
 */
export const curves: ReadonlyArray<{ readonly title: string; readonly metrics: ReadonlyArray<string> }> = [
  { title: "Success rate (the iteration's own sampled episodes)", metrics: ['episode/success_rate'] },
  { title: 'Mean return', metrics: ['episode/return'] },
  { title: 'Replayed lost games: the share of their episodes won (when replay is on)', metrics: ['replay/success_rate'] },
  {
    title: 'Invalid actions, episodes cut by the turn budget, exploration moves (share of turns)',
    metrics: ['episode/invalid_rate', 'episode/truncated_rate', 'episode/explored_rate']
  },
  { title: "Drift from the prior (KL of the policy to the RL stage's start)", metrics: ['kl/prior'] },
  { title: 'KL to the reference (the KL term, when on)', metrics: ['kl/mean'] },
  { title: 'Approx. KL to the rollout policy and clip fraction', metrics: ['kl/policy_change', 'clip/fraction'] },
  {
    title: 'Sampler/trainer mismatch: mean |log ratio|, KL (k3), share of tokens the importance weights truncated or masked',
    metrics: ['logprob/sampler_trainer_gap', 'mismatch/kl', 'mismatch/corrected_fraction']
  },
  { title: 'Sampler/trainer mismatch: largest token ratio pi_old / pi_sampler (when the trainer scored the batch)', metrics: ['mismatch/max_ratio'] },
  { title: 'Entropy', metrics: ['entropy/mean'] },
  { title: 'Policy loss', metrics: ['loss/policy'] },
  { title: 'Value loss', metrics: ['loss/value'] },
  { title: 'Context loss (auxiliary next-token loss on prompts and observations, when on)', metrics: ['loss/context'] },
  { title: 'Critic explained variance', metrics: ['value/explained_variance'] },
  { title: 'Advantages (action tokens)', metrics: ['advantage/mean', 'advantage/std'] },
  { title: 'Gradient norm (before clipping)', metrics: ['grad/policy_norm', 'grad/critic_norm'] },
  { title: 'Policy learning rate (warm-up and decay)', metrics: ['lr/policy'] },
  { title: "Episodes left out of the update (zero-variance groups, dynamic sampling's surplus)", metrics: ['batch/filtered_episodes'] },
  { title: 'Tokens/s (rollout generation, update)', metrics: ['perf/tokens_per_s', 'perf/update_tokens_per_s'] }
]

interface EvalRow {
  readonly phase: string
  readonly results: ReadonlyArray<{
    readonly env: string
    readonly successRate: number
    readonly ci95: { readonly low: number; readonly high: number }
    readonly turnsMean: number
    readonly episodes: number
    readonly seeds?: { readonly split: string; readonly first: number; readonly count: number }
  }>
}

/** Which held-out seeds the evaluations played: `: test split, seeds 4000000000-4000000099`. */
const seedsNote = (evals: ReadonlyArray<EvalRow>): string => {
  const seen = [
    ...new Set(
      evals.flatMap((e) =>
        e.results.flatMap((r) => (r.seeds === undefined ? [] : [`${r.seeds.split} split, seeds ${r.seeds.first}-${r.seeds.first + r.seeds.count - 1}`]))
      )
    )
  ]
  return seen.length === 0 ? '' : `: ${escape(seen.join('; '))}`
}

/** The charts of a run: SFT loss per step, SFT's held-out checks (`until`), then every RL curve a run logged, one line per stage. */
const chartsOf = (metrics: ReadonlyArray<Record<string, unknown>>) => {
  const rl = metrics.filter((m) => m['kind'] === 'rl')
  const sft = metrics.filter((m) => m['kind'] === 'sft')
  const checks = metrics.filter((m) => m['kind'] === 'sft-check')
  const stages = [...new Set(rl.map((m) => m['stage'] as number))]
  const series = (metrics: ReadonlyArray<string>) =>
    metrics
      .filter((metric) => rl.some((m) => finite(m[metric])))
      .flatMap((metric) =>
        stages.map((stage) => ({
          label:
            metrics.length > 1 || stages.length > 1
              ? `${metrics.length > 1 ? metric : ''}${metrics.length > 1 && stages.length > 1 ? ', ' : ''}${stages.length > 1 ? `stage ${stage + 1}` : ''}`
              : `stage ${stage + 1}`,
          data: rl.filter((m) => m['stage'] === stage).map((m) => ({ x: (m['iteration'] as number) + 1, y: finite(m[metric]) ? m[metric] : null }))
        }))
      )
  return [
    ...(sft.length > 0
      ? [
          {
            id: 'sft-loss',
            title: 'SFT loss (action and context tokens)',
            xLabel: 'step',
            datasets: ['loss/sft', 'loss/context']
              .filter((metric) => sft.some((m) => finite(m[metric])))
              .map((metric) => ({ label: metric, data: sft.map((m, i) => ({ x: i + 1, y: finite(m[metric]) ? m[metric] : null })) }))
          }
        ]
      : []),
    ...(checks.length > 0
      ? [
          {
            id: 'sft-checks',
            title: 'SFT held-out checks (greedy success; the stage ends at the first that passes)',
            xLabel: 'step',
            datasets: [{ label: 'success', data: checks.map((m) => ({ x: m['step'] as number, y: m['success'] as number })) }]
          }
        ]
      : []),
    ...(rl.length > 0
      ? curves
          .map((c) => ({ id: c.metrics[0]!.replace(/\W/g, '-'), title: c.title, xLabel: 'iteration', datasets: series(c.metrics) }))
          .filter((c) => c.datasets.length > 0)
      : [])
  ]
}

/** The evaluation table: one row per phase, one column per environment. */
const evalTable = (evals: ReadonlyArray<EvalRow>): string => {
  const envs = [...new Set(evals.flatMap((e) => e.results.map((r) => r.env)))]
  return evals.length === 0
    ? '<p>No evaluation yet.</p>'
    : `<table><thead><tr><th>phase</th>${envs.map((e) => `<th>${escape(e)}</th>`).join('')}</tr></thead><tbody>${evals
        .map(
          (e) =>
            `<tr><td>${escape(e.phase)}</td>${envs
              .map((env) => {
                const r = e.results.find((x) => x.env === env)
                return r === undefined
                  ? '<td></td>'
                  : `<td>${(100 * r.successRate).toFixed(1)}% <small>[${(100 * r.ci95.low).toFixed(1)}, ${(100 * r.ci95.high).toFixed(1)}] · ${r.turnsMean.toFixed(1)} turns · n=${r.episodes}</small></td>`
              })
              .join('')}</tr>`
        )
        .join('')}</tbody></table>`
}

/**
 * The report page for a run's metrics. Pure: metrics in, HTML out.
 *
 * @example
 * import { Report, RunDir } from '@mtrl/experiment'
 * const html = Report.render('mtrl run default', RunDir.open('runs/default-20261130-101500Z').readMetrics())
 *
 * @category destructors
 * @since 0.1.0
 */
export const render = (title: string, metrics: ReadonlyArray<Record<string, unknown>>): string => {
  const evals = metrics.filter((m) => m['kind'] === 'eval') as unknown as ReadonlyArray<EvalRow>
  return page(title, `<h2>Evaluation (held-out seeds${seedsNote(evals)})</h2>${evalTable(evals)}`, chartsOf(metrics))
}

/**
 * Writes `report.html` into the run folder and returns its path.
 *
 * @category utils
 * @since 0.1.0
 */
export const write = (run: RunDir, title: string): string => {
  run.writeText('report.html', render(title, run.readMetrics()))
  return run.file('report.html')
}
