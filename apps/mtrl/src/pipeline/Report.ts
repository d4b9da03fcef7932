/**
 * `report.html`: learning curves (success rate, return, KL, entropy, losses, tokens/s, SFT
 * loss) and the evaluation table of a run, drawn with Chart.js, which is inlined so the page
 * opens offline.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { RunDir } from './RunDir.js'

const require = createRequire(import.meta.url)

/** Chart.js's UMD bundle, inlined into the page. */
const chartJs = (): string => readFileSync(join(dirname(require.resolve('chart.js')), 'chart.umd.js'), 'utf8')

const escape = (text: string): string => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!)

/** Curves drawn for RL stages: a title and the metrics it draws (a chart with no finite value is left out). */
export const curves: ReadonlyArray<{ readonly title: string; readonly metrics: ReadonlyArray<string> }> = [
  { title: 'Success rate (the iteration\'s own sampled episodes)', metrics: ['episode/success_rate'] },
  { title: 'Mean return', metrics: ['episode/return'] },
  { title: 'Invalid actions and episodes cut by the turn budget', metrics: ['episode/invalid_rate', 'episode/truncated_rate'] },
  { title: 'Drift from the prior (KL of the policy to the RL stage\'s start)', metrics: ['kl/prior'] },
  { title: 'KL to the reference (the KL term, when on)', metrics: ['kl/mean'] },
  { title: 'Approx. KL to the rollout policy and clip fraction', metrics: ['kl/policy_change', 'clip/fraction'] },
  { title: 'Entropy', metrics: ['entropy/mean'] },
  { title: 'Policy loss', metrics: ['loss/policy'] },
  { title: 'Value loss', metrics: ['loss/value'] },
  { title: 'Context loss (auxiliary next-token loss on prompts and observations, when on)', metrics: ['loss/context'] },
  { title: 'Critic explained variance', metrics: ['value/explained_variance'] },
  { title: 'Advantages (action tokens)', metrics: ['advantage/mean', 'advantage/std'] },
  { title: 'Gradient norm (before clipping)', metrics: ['grad/policy_norm', 'grad/critic_norm'] },
  { title: 'Tokens/s (rollout generation, update)', metrics: ['perf/tokens_per_s', 'perf/update_tokens_per_s'] }
]

const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x)

interface EvalRow {
  readonly phase: string
  readonly results: ReadonlyArray<{ readonly env: string; readonly successRate: number; readonly ci95: { readonly low: number; readonly high: number }; readonly turnsMean: number; readonly episodes: number; readonly seeds?: { readonly split: string; readonly first: number; readonly count: number } }>
}

/** Which held-out seeds the evaluations played: `: test split, seeds 4000000000-4000000099`. */
const seedsNote = (evals: ReadonlyArray<EvalRow>): string => {
  const seen = [...new Set(evals.flatMap((e) => e.results.flatMap((r) => (r.seeds === undefined ? [] : [`${r.seeds.split} split, seeds ${r.seeds.first}-${r.seeds.first + r.seeds.count - 1}`]))))]
  return seen.length === 0 ? '' : `: ${escape(seen.join('; '))}`
}

/** The charts of a run: SFT loss per step, then every RL curve a run logged, one line per stage. */
const chartsOf = (metrics: ReadonlyArray<Record<string, unknown>>) => {
  const rl = metrics.filter((m) => m['kind'] === 'rl')
  const sft = metrics.filter((m) => m['kind'] === 'sft')
  const stages = [...new Set(rl.map((m) => m['stage'] as number))]
  const series = (metrics: ReadonlyArray<string>) =>
    metrics
      .filter((metric) => rl.some((m) => finite(m[metric])))
      .flatMap((metric) =>
        stages.map((stage) => ({
          label: metrics.length > 1 || stages.length > 1 ? `${metrics.length > 1 ? metric : ''}${metrics.length > 1 && stages.length > 1 ? ', ' : ''}${stages.length > 1 ? `stage ${stage + 1}` : ''}` : `stage ${stage + 1}`,
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
                  return r === undefined ? '<td></td>' : `<td>${(100 * r.successRate).toFixed(1)}% <small>[${(100 * r.ci95.low).toFixed(1)}, ${(100 * r.ci95.high).toFixed(1)}] · ${r.turnsMean.toFixed(1)} turns · n=${r.episodes}</small></td>`
                })
                .join('')}</tr>`
          )
          .join('')}</tbody></table>`
}

interface Chart {
  readonly id: string
  readonly title: string
  readonly xLabel: string
  readonly datasets: ReadonlyArray<{ readonly label: string; readonly data: ReadonlyArray<{ readonly x: number; readonly y: unknown }> }>
}

/** The page around a body and its charts (Chart.js inlined, so it opens offline). */
const page = (title: string, body: string, charts: ReadonlyArray<Chart>): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;color:#222}h1{font-size:1.4rem}.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(420px,1fr));gap:1.5rem}
.card{border:1px solid #ddd;border-radius:6px;padding:.8rem}table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.4rem .6rem;text-align:left}small{color:#666}</style>
<script>${chartJs()}</script></head>
<body><h1>${escape(title)}</h1>${body}
<h2>Learning curves</h2><div class="grid">${charts.map((c) => `<div class="card"><canvas id="${c.id}" role="img" aria-label="${escape(c.title)}"></canvas></div>`).join('')}</div>
<script>
const charts = ${JSON.stringify(charts)};
let drawn = 0;
for (const c of charts) {
  new Chart(document.getElementById(c.id), { type: 'line', data: { datasets: c.datasets.map((d) => ({ ...d, pointRadius: 0, borderWidth: 1.5, spanGaps: true })) },
    options: { animation: false, parsing: true, plugins: { title: { display: true, text: c.title } }, scales: { x: { type: 'linear', title: { display: true, text: c.xLabel } } } } });
  drawn++;
}
document.body.dataset.charts = String(drawn);
</script></body></html>
`

/** The report page for a run's metrics. Pure: metrics in, HTML out. */
export const render = (title: string, metrics: ReadonlyArray<Record<string, unknown>>): string => {
  const evals = metrics.filter((m) => m['kind'] === 'eval') as unknown as ReadonlyArray<EvalRow>
  return page(title, `<h2>Evaluation (held-out seeds${seedsNote(evals)})</h2>${evalTable(evals)}`, chartsOf(metrics))
}

/** One run of an ablation: its cell, training seed, metrics and final evaluation. */
export interface AblationRun {
  readonly cell: string
  readonly seed: number
  readonly metrics: ReadonlyArray<Record<string, unknown>>
}

/** Per cell, the mean over its seeds of an RL metric at each iteration of the last RL stage (iterations every seed reached). */
export const cellCurves = (runs: ReadonlyArray<AblationRun>, metric: string): ReadonlyArray<{ readonly label: string; readonly data: ReadonlyArray<{ readonly x: number; readonly y: number }> }> =>
  [...new Set(runs.map((r) => r.cell))].flatMap((cell) => {
    const perSeed = runs
      .filter((r) => r.cell === cell)
      .map((r) => {
        const rl = r.metrics.filter((m) => m['kind'] === 'rl')
        const last = Math.max(...rl.map((m) => m['stage'] as number))
        return rl.filter((m) => m['stage'] === last && finite(m[metric])).map((m) => m[metric] as number)
      })
      .filter((ys) => ys.length > 0)
    const n = Math.min(...perSeed.map((ys) => ys.length))
    if (perSeed.length === 0 || n === 0) return []
    const data = Array.from({ length: n }, (_, i) => ({ x: i + 1, y: perSeed.reduce((s, ys) => s + ys[i]!, 0) / perSeed.length }))
    return [{ label: `${cell} (${perSeed.length} seed${perSeed.length === 1 ? '' : 's'})`, data }]
  })

/** The curves an ablation compares across cells (means over seeds). */
const ablationCurves: ReadonlyArray<{ readonly title: string; readonly metric: string }> = [
  { title: 'Success rate of the iteration\'s own sampled episodes', metric: 'episode/success_rate' },
  { title: 'Mean return', metric: 'episode/return' },
  { title: 'Invalid actions', metric: 'episode/invalid_rate' },
  { title: 'Drift from the prior (KL to the RL stage\'s start)', metric: 'kl/prior' },
  { title: 'Entropy', metric: 'entropy/mean' }
]

/** The ablation's page: its table (final held-out success per cell, mean ± std over seeds) and each cell's learning curves. Pure. */
export const renderAblation = (title: string, table: ReadonlyArray<{ readonly cell: string; readonly env: string; readonly mean: number; readonly std: number; readonly seeds: number }>, runs: ReadonlyArray<AblationRun>): string => {
  const rows = table.map((r) => `<tr><td>${escape(r.cell)}</td><td>${escape(r.env)}</td><td>${(100 * r.mean).toFixed(1)}% ± ${(100 * r.std).toFixed(1)} <small>(n=${r.seeds})</small></td></tr>`).join('')
  const body = `<h2>Final held-out success (mean ± std over training seeds)</h2><table><thead><tr><th>cell</th><th>env</th><th>success</th></tr></thead><tbody>${rows}</tbody></table>`
  const charts = ablationCurves
    .map((c) => ({ id: c.metric.replace(/\W/g, '-'), title: `${c.title} (mean over seeds)`, xLabel: 'iteration', datasets: cellCurves(runs, c.metric) }))
    .filter((c) => c.datasets.length > 0)
  return page(title, body, charts)
}

/** Writes `report.html` into the run folder and returns its path. */
export const write = (run: RunDir, title: string): string => {
  run.writeText('report.html', render(title, run.readMetrics()))
  return run.file('report.html')
}
