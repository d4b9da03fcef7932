/**
 * The Train panel's controls and feedback: train (the JSON of `#recipe-json`, made safe for the
 * browser), stop, resume, save; the status, the log's last lines, the metrics into the charts.
 */
import type { Event } from '../worker/protocol.js'
import type { Charts } from './charts.js'
import type { Connection } from './connection.js'
import { byId } from './dom.js'
import { download } from './download.js'
import { showError } from './errors.js'
import type { PageState } from './pageState.js'
import { browserSafe } from './recipes.js'
import type { RecipeForm } from './recipeForm.js'

/** Lines `#log` keeps. */
const logLines = 200

/** The recipe in `#recipe-json`, or undefined after showing why it is not JSON. */
const recipeJson = (): unknown => {
  const area = byId<HTMLTextAreaElement>('recipe-json')
  try {
    const parsed: unknown = JSON.parse(area.value)
    const safe = browserSafe(parsed)
    if (JSON.stringify(safe) !== JSON.stringify(parsed)) area.value = JSON.stringify(safe, null, 2)
    return safe
  } catch (e) {
    showError(`the recipe is not JSON: ${e instanceof Error ? e.message : String(e)}`)
    return undefined
  }
}

const appendLine = (text: string): void => {
  const log = byId('log')
  const lines = `${log.textContent ?? ''}${text}\n`.split('\n')
  log.textContent = lines.slice(Math.max(0, lines.length - 1 - logLines)).join('\n')
  log.scrollTop = log.scrollHeight
}

const busy = (status: string): boolean => status === 'training' || status === 'stopping'

/** Wires `#train`, `#train-quick`, `#stop`, `#resume`, `#save`; returns the handler of the events it shows. */
export const mountTrainPanel = (connection: Connection, state: PageState, charts: Charts, form: RecipeForm): ((event: Event) => void) => {
  const train = (): void => {
    const recipe = recipeJson()
    if (recipe === undefined) return
    if (!busy(state.status)) {
      charts.clear()
      for (const name of Object.keys(state.points) as Array<keyof PageState['points']>) state.points[name] = 0
    }
    connection.send({ type: 'train', recipe })
  }
  byId('train').addEventListener('click', train)
  byId('train-quick').addEventListener('click', () => {
    form.choose('quick')
    train()
  })
  byId('stop').addEventListener('click', () => connection.send({ type: 'stop' }))
  byId('resume').addEventListener('click', () => connection.send({ type: 'resume' }))
  byId('save').addEventListener('click', () => connection.send({ type: 'save' }))
  return (event) => {
    switch (event.type) {
      case 'status':
        byId('status').textContent = `${event.status}${event.message === undefined ? '' : `: ${event.message}`}`
        byId('status').dataset['status'] = event.status
        return
      case 'line':
        return appendLine(event.text)
      case 'metric':
        for (const name of charts.add(event.record)) state.points[name] += 1
        return
      case 'checkpoint':
        return download(event.name, event.zip)
      default:
        return
    }
  }
}
