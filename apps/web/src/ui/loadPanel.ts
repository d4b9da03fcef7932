/**
 * The Load panel: a checkpoint from a file (a Node run's checkpoint folder files, or a zip of
 * them) becomes the page's agent; the agent (loaded or trained here) is evaluated greedily on
 * held-out seeds, each episode's actions listed.
 */
import type { DroppedFile, EnvChoice, Evaluation, Event } from '../worker/protocol.js'
import type { Connection } from './connection.js'
import { byId, el, numberIn, percent } from './dom.js'
import { fromDrop, fromInput } from './droppedFiles.js'
import { showError } from './errors.js'

const evaluationTable = (evaluation: Evaluation): HTMLElement =>
  el('table', { className: 'evaluation' }, [
    el('thead', {}, [el('tr', {}, [el('th', { text: 'seed' }), el('th', { text: 'result' }), el('th', { text: 'actions' })])]),
    el(
      'tbody',
      {},
      evaluation.episodes.map((e) =>
        el('tr', { className: e.won ? 'won' : 'lost' }, [
          el('td', { text: String(e.seed) }),
          el('td', { text: e.won ? 'won' : 'lost' }),
          el('td', { className: 'actions', text: e.actions.join(' · ') })
        ])
      )
    )
  ])

const showEvaluation = (evaluation: Evaluation): void =>
  byId('eval-result').replaceChildren(
    el('p', {
      className: 'eval-success',
      text: `${evaluation.env}: ${percent(evaluation.success)} success over ${evaluation.episodes.length} greedy episodes`
    }),
    evaluationTable(evaluation)
  )

const evaluating = 'evaluating...'

/** Wires the drop zone, `#load-input` and `#eval-run`; returns the handler of `agent` and `evaluation` events. */
export const mountLoadPanel = (connection: Connection, game: () => EnvChoice): ((event: Event) => void) => {
  const load = (files: ReadonlyArray<DroppedFile>): void => {
    if (files.length === 0) return showError('no files: drop a checkpoint folder, its files, or a zip of it')
    byId('load-files').textContent = files.map((f) => f.name).join(', ')
    connection.send({ type: 'load', files })
  }
  const zone = byId('load-drop')
  zone.addEventListener('dragover', (e) => {
    e.preventDefault()
    zone.classList.add('over')
  })
  zone.addEventListener('dragleave', () => zone.classList.remove('over'))
  zone.addEventListener('drop', (e) => {
    e.preventDefault()
    zone.classList.remove('over')
    if (e.dataTransfer !== null) void fromDrop(e.dataTransfer).then(load, (err: unknown) => showError(`reading the dropped files: ${String(err)}`))
  })
  const input = byId<HTMLInputElement>('load-input')
  input.addEventListener('change', () => void fromInput(input.files).then(load, (err: unknown) => showError(`reading the files: ${String(err)}`)))
  byId('eval-run').addEventListener('click', () => {
    byId('eval-result').textContent = evaluating
    connection.send({
      type: 'evaluate',
      env: game(),
      episodes: Math.max(1, Math.round(numberIn('eval-episodes', 20))),
      split: byId<HTMLSelectElement>('eval-split').value === 'validation' ? 'validation' : 'test'
    })
  })
  return (event) => {
    if (event.type === 'agent') byId('agent').textContent = event.description
    if (event.type === 'evaluation') showEvaluation(event.evaluation)
    if (event.type === 'error' && byId('eval-result').textContent === evaluating) byId('eval-result').textContent = ''
  }
}
