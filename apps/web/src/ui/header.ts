/**
 * The header's backend line: which TensorFlow.js backend the worker runs and why (the page's
 * `mtrl info`), and the choice of backend, which reloads the page with `?backend=`.
 */
import type { BackendChoice, BackendReport } from '../worker/protocol.js'
import { byId, options } from './dom.js'

const choices: ReadonlyArray<BackendChoice> = ['auto', 'webgpu', 'webgl', 'wasm']

/** The backend the URL asks for (`?backend=wasm`), `auto` when none or another word. */
export const requestedBackend = (search: string): BackendChoice => {
  const asked = new URLSearchParams(search).get('backend')
  return choices.find((c) => c === asked) ?? 'auto'
}

/** Fills `#backend-choice` with `current` selected; a change reloads the page with it. */
export const mountBackendChoice = (current: BackendChoice): void => {
  const select = byId<HTMLSelectElement>('backend-choice')
  select.append(...options(choices.map((c) => [c, c] as const)))
  select.value = current
  select.addEventListener('change', () => {
    const url = new URL(window.location.href)
    url.searchParams.set('backend', select.value)
    window.location.assign(url.toString())
  })
}

/** `#backend`: the backend's name and detail. */
export const showBackend = (report: BackendReport): void => {
  byId('backend').textContent = `${report.name}: ${report.detail}${report.crossOriginIsolated ? '' : ' (not cross-origin isolated: no wasm threads)'}`
  byId('backend').dataset['backend'] = report.name
}
