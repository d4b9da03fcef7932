/**
 * The live charts (`#charts`), drawn with uPlot: each `metric` event's record adds rows to the
 * charts it feeds ({@link rowsOf}); a chart is redrawn at once, and rebuilt when a new line
 * appears (a second game in the evaluations, a metric that starts later).
 */
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import { chartSpecs, type ChartSpec } from './chartSpecs.js'
import { byId, el } from './dom.js'
import { evalSummary, hasValue, rowsOf, type Row } from './metricRows.js'
import type { ChartName } from './pageState.js'

const palette = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2']
const height = 190

interface Chart {
  readonly spec: ChartSpec
  readonly box: HTMLElement
  readonly rows: Row[]
  labels: string[]
  plot?: uPlot
}

/** A y tick's label: three significant digits, so that small values (a KL of 0.0012) stay apart. */
const tickLabel = (y: number): string => (y === 0 ? '0' : Math.abs(y) >= 1000 || Math.abs(y) < 0.01 ? y.toPrecision(2) : String(Number(y.toPrecision(3))))

/** The lines a chart's rows have values for, in order of appearance. */
const labelsOf = (rows: ReadonlyArray<Row>): string[] => [...new Set(rows.flatMap((r) => Object.keys(r.values).filter((k) => r.values[k] !== null)))]

const dataOf = (chart: Chart): uPlot.AlignedData => [
  chart.rows.map((_, i) => i + 1),
  ...chart.labels.map((label) => chart.rows.map((r) => r.values[label] ?? null))
]

const optionsOf = (chart: Chart, width: number): uPlot.Options => ({
  width,
  height,
  scales: { x: { time: false }, ...(chart.spec.yRange === undefined ? {} : { y: { range: [...chart.spec.yRange] as uPlot.Range.MinMax } }) },
  axes: [
    { label: chart.spec.xLabel, size: 36, labelSize: 16 },
    { size: 56, values: (_u: unknown, ticks: number[]) => ticks.map(tickLabel) }
  ],
  series: [
    { label: chart.spec.xLabel },
    ...chart.labels.map((label, i) => ({ label, stroke: palette[i % palette.length]!, width: 1.5, spanGaps: true, points: { show: true, size: 4 } }))
  ]
})

/** Draws `chart` anew when its lines changed, else updates its data. */
const draw = (chart: Chart): void => {
  const labels = labelsOf(chart.rows)
  if (chart.plot !== undefined && labels.join('\n') === chart.labels.join('\n')) return chart.plot.setData(dataOf(chart))
  chart.plot?.destroy()
  chart.labels = labels
  chart.box.replaceChildren()
  chart.plot = new uPlot(optionsOf(chart, Math.max(200, chart.box.clientWidth)), dataOf(chart), chart.box)
}

const card = (spec: ChartSpec, box: HTMLElement): HTMLElement =>
  el('figure', { className: 'chart', attrs: { 'data-chart': spec.name } }, [
    el('h3', { text: spec.title }),
    box,
    el('figcaption', { text: spec.caption }),
    ...(spec.name === 'eval' ? [el('ul', { className: 'eval-phases', attrs: { id: 'eval-phases' } })] : [])
  ])

export interface Charts {
  /** Adds `record`'s rows; returns the charts that received a point. */
  readonly add: (record: Readonly<Record<string, unknown>>) => ReadonlyArray<ChartName>
  /** Empties every chart (a new training). */
  readonly clear: () => void
}

/** Builds the chart cards in `#charts`, empty until records arrive. */
export const mountCharts = (): Charts => {
  const charts = new Map<ChartName, Chart>(
    chartSpecs.map((spec) => [spec.name, { spec, box: el('div', { className: 'plot', text: 'no points yet' }), rows: [], labels: [] }])
  )
  byId('charts').append(...[...charts.values()].map((c) => card(c.spec, c.box)))
  new ResizeObserver(() => charts.forEach((c) => c.plot?.setSize({ width: Math.max(200, c.box.clientWidth), height }))).observe(byId('charts'))
  return {
    add: (record) => {
      const rows = rowsOf(record).filter(hasValue)
      if (record['kind'] === 'eval') byId('eval-phases').append(el('li', { text: evalSummary(record) }))
      for (const row of rows) {
        const chart = charts.get(row.chart)!
        chart.rows.push(row)
        draw(chart)
      }
      return rows.map((r) => r.chart)
    },
    clear: () => {
      charts.forEach((c) => {
        c.plot?.destroy()
        c.plot = undefined
        c.rows.length = 0
        c.labels = []
        c.box.replaceChildren('no points yet')
      })
      byId('eval-phases').replaceChildren()
    }
  }
}
