/**
 * The results of an ablation: one row per cell and evaluation environment (final held-out
 * success, mean and sample std over training seeds), each cell's learning curves (mean over
 * seeds), and the ablation's `report.html`.
 *
 * @since 0.1.0
 */
import { OverSeeds, type Summary } from '@mtrl/eval'
import { escape, finite, page } from './internal/page.js'

/**
 * One finished run of a cell: its training seed and its final evaluation.
 *
 * @category models
 * @since 0.1.0
 */
export interface Result {
  readonly cell: string
  readonly seed: number
  readonly final: ReadonlyArray<Summary.Summary>
}

/**
 * One cell on one evaluation environment, over its seeds: the mean success rate, its sample std,
 * and its 95% interval over seeds and games (`OverSeeds.interval` of @mtrl/eval: inside [0, 1];
 * with one seed, over games only).
 *
 * @category models
 * @since 0.1.0
 */
export interface Row {
  readonly cell: string
  readonly env: string
  readonly seeds: number
  readonly mean: number
  readonly std: number
  readonly ci95: Summary.Interval
  readonly values: ReadonlyArray<number>
}

const pct = (x: number): string => (100 * x).toFixed(1)

/** `83.3% [73.3, 90.1] ± 3.1 (n=3)`: mean, 95% interval, std over seeds, seeds. */
const figure = (r: Pick<Row, 'mean' | 'ci95' | 'std' | 'seeds'>): string =>
  `${pct(r.mean)}% [${pct(r.ci95.low)}, ${pct(r.ci95.high)}] ± ${pct(r.std)} (n=${r.seeds}${r.seeds === 1 ? ': one seed' : ''})`

/**
 * The rows as a text table for people: cell, environment, success mean [95% interval] ± std over
 * seeds (in %).
 *
 * @category destructors
 * @since 0.1.0
 */
export const table = (rows: ReadonlyArray<Row>): string =>
  [
    `${'cell'.padEnd(44)} ${'env'.padEnd(30)} success (mean [95% interval over seeds and games] ± std over seeds)`,
    ...rows.map((r) => `${r.cell.padEnd(44)} ${r.env.padEnd(30)} ${figure(r)}`)
  ].join('\n')

/**
 * One run of an ablation: its cell, training seed and metrics (`metrics.jsonl` records).
 *
 * @category models
 * @since 0.1.0
 */
export interface Run {
  readonly cell: string
  readonly seed: number
  readonly metrics: ReadonlyArray<Record<string, unknown>>
}

/**
 * One row per cell and evaluation environment: success rate mean, sample std and 95% interval
 * over seeds (each seed on the same games).
 *
 * @category destructors
 * @since 0.1.0
 */
export const rows = (results: ReadonlyArray<Result>): ReadonlyArray<Row> => {
  const groups = new Map<string, { values: number[]; games: number }>()
  for (const r of results)
    for (const e of r.final) {
      const key = `${r.cell}\u0000${e.env}`
      const group = groups.get(key)
      groups.set(key, { values: [...(group?.values ?? []), e.successRate], games: Math.min(group?.games ?? e.episodes, e.episodes) })
    }
  return [...groups.entries()].map(([key, { values, games }]) => {
    const [cell, env] = key.split('\u0000') as [string, string]
    const mean = values.reduce((a, b) => a + b, 0) / values.length
    const std = values.length < 2 ? 0 : Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1))
    const ci95 = games < 2 ? { low: 0, high: 1 } : OverSeeds.interval(games)(values).ci95
    return { cell, env, seeds: values.length, mean, std, ci95, values }
  })
}

/**
 * Per cell, the mean over its seeds of an RL metric at each iteration of the last RL stage
 * (iterations every seed reached); a cell whose runs logged no finite value draws nothing.
 *
 * @category destructors
 * @since 0.1.0
 */
export const cellCurves = (
  runs: ReadonlyArray<Run>,
  metric: string
): ReadonlyArray<{ readonly label: string; readonly data: ReadonlyArray<{ readonly x: number; readonly y: number }> }> =>
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
  { title: "Success rate of the iteration's own sampled episodes", metric: 'episode/success_rate' },
  { title: 'Mean return', metric: 'episode/return' },
  { title: 'Invalid actions', metric: 'episode/invalid_rate' },
  { title: "Drift from the prior (KL to the RL stage's start)", metric: 'kl/prior' },
  { title: 'Entropy', metric: 'entropy/mean' }
]

/**
 * The ablation's page: its table (final held-out success per cell, mean [95% interval] ± std over seeds) and
 * each cell's learning curves. Pure.
 *
 * @category destructors
 * @since 0.1.0
 */
export const render = (
  title: string,
  table: ReadonlyArray<Pick<Row, 'cell' | 'env' | 'mean' | 'std' | 'ci95' | 'seeds'>>,
  runs: ReadonlyArray<Run>
): string => {
  const lines = table.map((r) => `<tr><td>${escape(r.cell)}</td><td>${escape(r.env)}</td><td>${escape(figure(r))}</td></tr>`).join('')
  const body = `<h2>Final held-out success (mean [95% interval over seeds and games] ± std over training seeds)</h2><table><thead><tr><th>cell</th><th>env</th><th>success</th></tr></thead><tbody>${lines}</tbody></table>`
  const charts = ablationCurves
    .map((c) => ({ id: c.metric.replace(/\W/g, '-'), title: `${c.title} (mean over seeds)`, xLabel: 'iteration', datasets: cellCurves(runs, c.metric) }))
    .filter((c) => c.datasets.length > 0)
  return page(title, body, charts)
}
