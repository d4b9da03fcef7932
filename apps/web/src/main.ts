/**
 * The page: starts the worker (which computes everything) on the backend the URL asks for, wires
 * the panels, and keeps `window.mtrlPage` (what tests read) in step with the worker's events.
 */
import './styles.css'
import type { Event } from './worker/protocol.js'
import { mountBackendCheck } from './ui/backendCheck.js'
import { mountCharts } from './ui/charts.js'
import { connect } from './ui/connection.js'
import { mountEnvPicker } from './ui/envPicker.js'
import { showError } from './ui/errors.js'
import { mountGameSelect } from './ui/gameSelect.js'
import { mountBackendChoice, requestedBackend, showBackend } from './ui/header.js'
import { mountInspectPanel } from './ui/inspectPanel.js'
import { mountLoadPanel } from './ui/loadPanel.js'
import { install, type PageState } from './ui/pageState.js'
import { mountPlayPanel } from './ui/playPanel.js'
import { mountRecipeForm } from './ui/recipeForm.js'
import { mountTrainPanel } from './ui/trainPanel.js'

/** What every event changes in `window.mtrlPage`. */
const record = (state: PageState, event: Event): void => {
  switch (event.type) {
    case 'ready':
      state.backend = event.backend
      return showBackend(event.backend)
    case 'status':
      state.status = event.status
      return
    case 'metric':
      state.records.push(event.record)
      return
    case 'line':
      state.lines.push(event.text)
      return
    case 'game':
      state.lastGame = event.game
      return
    case 'inspection':
      state.lastInspection = event.inspection
      return
    case 'evaluation':
      state.evaluations.push(event.evaluation)
      return
    case 'error':
      return showError(event.message)
    default:
      return
  }
}

const start = (): void => {
  const state = install()
  const backend = requestedBackend(window.location.search)
  mountBackendChoice(backend)
  const worker = new Worker(new URL('./worker/main.worker.ts', import.meta.url), { type: 'module' })
  const connection = connect(worker)
  const env = mountEnvPicker()
  const form = mountRecipeForm(env)
  const games = ['play-env', 'inspect-env', 'eval-env'].map((id) => mountGameSelect(id, env.value))
  const handlers = [
    (event: Event) => record(state, event),
    mountBackendCheck(connection, state),
    (event: Event) => event.type === 'ready' && [env, ...games].forEach((picker) => picker.setKinds(event.envs)),
    mountTrainPanel(connection, state, mountCharts(), form),
    mountPlayPanel(connection, games[0]!.value),
    mountInspectPanel(connection, games[1]!.value),
    mountLoadPanel(connection, games[2]!.value)
  ]
  connection.listen((event) => handlers.forEach((handle) => handle(event)))
  connection.send({ type: 'init', backend })
}

start()
