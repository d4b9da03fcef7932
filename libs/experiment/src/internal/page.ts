/**
 * The HTML page every report shares: a title, a body, and line charts drawn with Chart.js,
 * which is inlined so the page opens offline.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

const require = createRequire(import.meta.url)

/** Chart.js's UMD bundle, inlined into the page. */
const chartJs = (): string => readFileSync(join(dirname(require.resolve('chart.js')), 'chart.umd.js'), 'utf8')

export const escape = (text: string): string => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!)

export const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x)

/** A line chart: its canvas id, title, x-axis label and lines (a `null` y is a gap). */
export interface Chart {
  readonly id: string
  readonly title: string
  readonly xLabel: string
  readonly datasets: ReadonlyArray<{ readonly label: string; readonly data: ReadonlyArray<{ readonly x: number; readonly y: unknown }> }>
}

/** The page around a body and its charts (Chart.js inlined, so it opens offline). */
export const page = (title: string, body: string, charts: ReadonlyArray<Chart>): string => `<!doctype html>
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
