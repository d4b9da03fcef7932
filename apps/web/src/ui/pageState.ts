/**
 * What the page exposes to tests as `window.mtrlPage`: how many points each chart received, the
 * evaluations, the last game and inspection, the worker's status and backend. Updated as the
 * worker's events arrive; the panels read nothing back from it.
 */
import type { BackendReport, Evaluation, GameState, Inspection, ParityReport } from '../worker/protocol.js'

/** The live charts, by the names tests use. */
export const chartNames = ['loss', 'heldOutLoss', 'success', 'invalid', 'kl', 'eval'] as const
export type ChartName = (typeof chartNames)[number]

export interface PageState {
  /** Points (records with a value) each chart received. */
  readonly points: Record<ChartName, number>
  /** `evaluation` events (the Load panel's evaluations), in order. */
  readonly evaluations: Evaluation[]
  /** Every metric record of the page's runs, in order (benches read the speeds from them). */
  readonly records: Array<Readonly<Record<string, unknown>>>
  /** Every line the runs reported. */
  readonly lines: string[]
  lastGame?: GameState
  lastInspection?: Inspection
  /** The last `status` event's status (`starting` until the worker answers). */
  status: string
  backend?: BackendReport
  /** The last check of the backend against cpu (`#backend-check`). */
  parity?: ParityReport
}

declare global {
  interface Window {
    mtrlPage: PageState
  }
}

/** A fresh state, installed as `window.mtrlPage`. */
export const install = (): PageState => {
  const state: PageState = {
    points: { loss: 0, heldOutLoss: 0, success: 0, invalid: 0, kl: 0, eval: 0 },
    evaluations: [],
    records: [],
    lines: [],
    status: 'starting'
  }
  window.mtrlPage = state
  return state
}
