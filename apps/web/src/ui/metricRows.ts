/**
 * Which chart a record of the run's metrics log feeds, and with what: a pure mapping from a
 * `metric` event's record (`kind`: sft, sft-epoch, rl, eval) to a row of named values. The x of
 * a row is its rank in its chart (steps, epochs and iterations run on across stages).
 */
import type { ChartName } from './pageState.js'

/** One point of each line of a chart (`null`: no value for that line in this record). */
export interface Row {
  readonly chart: ChartName
  readonly values: Readonly<Record<string, number | null>>
}

const finiteOr = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null)

/** The named values of `record`, under their own names, those with at least one finite value. */
const pick = (record: Readonly<Record<string, unknown>>, names: Readonly<Record<string, string>>): Record<string, number | null> =>
  Object.fromEntries(Object.entries(names).map(([label, metric]) => [label, finiteOr(record[metric])]))

/** An evaluation's success per game (`eval` records: `results[].env`, `successRate`). */
const evalValues = (record: Readonly<Record<string, unknown>>): Record<string, number | null> => {
  const results = Array.isArray(record['results']) ? (record['results'] as ReadonlyArray<Readonly<Record<string, unknown>>>) : []
  return Object.fromEntries(results.map((r) => [String(r['env']), finiteOr(r['successRate'])]))
}

/** The rows `record` adds to the charts (none for kinds no chart draws). */
export const rowsOf = (record: Readonly<Record<string, unknown>>): ReadonlyArray<Row> => {
  switch (record['kind']) {
    case 'sft':
      return [{ chart: 'loss', values: pick(record, { 'loss/sft': 'loss/sft', 'loss/context': 'loss/context' }) }]
    case 'sft-epoch':
      return [{ chart: 'heldOutLoss', values: pick(record, { train: 'loss/train', 'held-out': 'loss/heldout' }) }]
    case 'rl':
      return [
        { chart: 'success', values: pick(record, { sampled: 'episode/success_rate' }) },
        { chart: 'invalid', values: pick(record, { invalid: 'episode/invalid_rate', truncated: 'episode/truncated_rate' }) },
        { chart: 'kl', values: pick(record, { 'kl/prior': 'kl/prior', 'kl/mean': 'kl/mean' }) }
      ]
    case 'eval':
      return [{ chart: 'eval', values: evalValues(record) }]
    default:
      return []
  }
}

/** Whether a row has a value to draw. */
export const hasValue = (row: Row): boolean => Object.values(row.values).some((v) => v !== null)

/** An evaluation record's one-line summary: `after-sft: textworld/w2-o3-q4 81.0%`. */
export const evalSummary = (record: Readonly<Record<string, unknown>>): string =>
  `${String(record['phase'] ?? 'evaluation')}: ${Object.entries(evalValues(record))
    .map(([env, success]) => `${env} ${success === null ? '?' : `${(100 * success).toFixed(1)}%`}`)
    .join(', ')}`
