/**
 * The header's check of the backend: `#backend-check` asks the worker to run the parity checks
 * of training and sampling on its backend against the cpu backend's reference kernels;
 * `#backend-parity` says how many measures are within tolerance, the worst one, any tensor left
 * behind, and lists every measure in its title.
 */
import type { Event, ParityReport } from '../worker/protocol.js'
import type { Connection } from './connection.js'
import { byId } from './dom.js'
import type { PageState } from './pageState.js'

const summary = (report: ParityReport): string => {
  const failed = report.measures.filter((m) => !m.passed)
  const worst = report.measures.reduce((a, m) => (m.error / m.tolerance > a.error / a.tolerance ? m : a))
  const verdict = failed.length === 0 && report.leaked === 0 ? 'matches cpu' : 'DIFFERS from cpu'
  return [
    `${report.backend} ${verdict}: ${report.measures.length - failed.length} of ${report.measures.length} measures within tolerance`,
    failed.length > 0 ? `failed: ${failed.map((m) => `${m.check} ${m.name} ${m.error.toPrecision(2)} > ${m.tolerance}`).join(', ')}` : undefined,
    `closest to its tolerance: ${worst.check} ${worst.name} ${worst.error.toPrecision(2)} of ${worst.tolerance}`,
    report.leaked === 0 ? 'no tensor left behind' : `${report.leaked} tensors left behind`,
    `${report.seconds.toFixed(1)} s`
  ]
    .filter((part) => part !== undefined)
    .join('; ')
}

const details = (report: ParityReport): string =>
  report.measures.map((m) => `${m.passed ? 'ok' : 'FAILED'} ${m.check}: ${m.name} ${m.error.toPrecision(3)} (tolerance ${m.tolerance})`).join('\n')

/** Wires `#backend-check`; returns the handler of `parity` and `ready` events (which record the report in `state`). */
export const mountBackendCheck = (connection: Connection, state: PageState): ((event: Event) => void) => {
  const button = byId<HTMLButtonElement>('backend-check')
  const out = byId('backend-parity')
  button.addEventListener('click', () => {
    button.disabled = true
    out.textContent = 'checking against cpu...'
    connection.send({ type: 'parity' })
  })
  return (event) => {
    if (event.type === 'ready') button.disabled = false
    if (event.type === 'error' && out.textContent === 'checking against cpu...') {
      button.disabled = false
      out.textContent = ''
    }
    if (event.type !== 'parity') return
    state.parity = event.report
    button.disabled = false
    out.textContent = summary(event.report)
    out.title = details(event.report)
    out.dataset['passed'] = String(event.report.measures.every((m) => m.passed) && event.report.leaked === 0)
  }
}
