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

/** Curves drawn for RL stages: [metric, title]. */
export const curves: ReadonlyArray<readonly [string, string]> = [
  ['episode/success_rate', 'Success rate (training episodes)'],
  ['episode/return', 'Mean return'],
  ['kl/mean', 'KL to the reference'],
  ['entropy/mean', 'Entropy'],
  ['loss/policy', 'Policy loss'],
  ['loss/value', 'Value loss'],
  ['perf/tokens_per_s', 'Rollout tokens/s']
]

interface EvalRow {
  readonly phase: string
  readonly results: ReadonlyArray<{ readonly env: string; readonly successRate: number; readonly ci95: { readonly low: number; readonly high: number }; readonly turnsMean: number; readonly episodes: number }>
}

/** The report page for a run's metrics. Pure: metrics in, HTML out. */
export const render = (title: string, metrics: ReadonlyArray<Record<string, unknown>>): string => {
  const rl = metrics.filter((m) => m['kind'] === 'rl')
  const sft = metrics.filter((m) => m['kind'] === 'sft')
  const evals = metrics.filter((m) => m['kind'] === 'eval') as unknown as ReadonlyArray<EvalRow>
  const stages = [...new Set(rl.map((m) => m['stage'] as number))]
  const series = (metric: string) =>
    stages.map((stage) => ({
      label: `stage ${stage + 1}`,
      data: rl.filter((m) => m['stage'] === stage).map((m) => ({ x: (m['iteration'] as number) + 1, y: typeof m[metric] === 'number' && Number.isFinite(m[metric]) ? m[metric] : null }))
    }))
  const charts = [
    ...(sft.length > 0
      ? [
          {
            id: 'sft-loss',
            title: 'SFT loss (action and context tokens)',
            xLabel: 'step',
            datasets: ['loss/sft', 'loss/context']
              .filter((metric) => sft.some((m) => typeof m[metric] === 'number' && Number.isFinite(m[metric])))
              .map((metric) => ({ label: metric, data: sft.map((m, i) => ({ x: i + 1, y: typeof m[metric] === 'number' && Number.isFinite(m[metric]) ? m[metric] : null })) }))
          }
        ]
      : []),
    ...(rl.length > 0 ? curves.map(([metric, t]) => ({ id: metric.replace(/\W/g, '-'), title: t, xLabel: 'iteration', datasets: series(metric) })) : [])
  ]
  const envs = [...new Set(evals.flatMap((e) => e.results.map((r) => r.env)))]
  const table =
    evals.length === 0
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
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;color:#222}h1{font-size:1.4rem}.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(420px,1fr));gap:1.5rem}
.card{border:1px solid #ddd;border-radius:6px;padding:.8rem}table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.4rem .6rem;text-align:left}small{color:#666}</style>
<script>${chartJs()}</script></head>
<body><h1>${escape(title)}</h1><h2>Evaluation (held-out seeds)</h2>${table}
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
}

/** Writes `report.html` into the run folder and returns its path. */
export const write = (run: RunDir, title: string): string => {
  run.writeText('report.html', render(title, run.readMetrics()))
  return run.file('report.html')
}
