/**
 * The Train panel's game: TextWorld by preset or by its three dials (kept in step), or ALFWorld
 * with a choice of task types.
 */
import type { EnvChoice } from '../worker/protocol.js'
import { byId, el, options } from './dom.js'
import { alfWorld, alfWorldTaskTypes, defaultGame, dialRanges, dialsOf, settingName, textWorld, textWorldPresets, type Dials } from './environments.js'

export interface EnvPicker {
  /** The game chosen now. */
  readonly value: () => EnvChoice
  /** Called after every change of the game. */
  readonly onChange: (listener: () => void) => void
}

const dialIds: { readonly [K in keyof Dials]: string } = { rooms: 'env-rooms', objects: 'env-objects', quest: 'env-quest' }

const readDials = (): Dials => {
  const read = (key: keyof Dials): number => {
    const [lo, hi] = dialRanges[key]
    const n = Math.round(Number(byId<HTMLInputElement>(dialIds[key]).value))
    return Number.isFinite(n) ? Math.min(hi, Math.max(lo, n)) : lo
  }
  return { rooms: read('rooms'), objects: read('objects'), quest: read('quest') }
}

const writeDials = (dials: Dials): void => {
  for (const key of Object.keys(dialIds) as Array<keyof Dials>) byId<HTMLInputElement>(dialIds[key]).value = String(dials[key])
}

/** The task-type checkboxes, all ticked. */
const taskTypeBoxes = (): ReadonlyArray<HTMLLabelElement> =>
  alfWorldTaskTypes.map((type) =>
    el('label', { className: 'check' }, [el('input', { attrs: { type: 'checkbox', name: 'alf-type', value: type, checked: '' } }), type.replace(/_/g, ' ')])
  )

const checkedTaskTypes = (): ReadonlyArray<string> =>
  [...document.querySelectorAll<HTMLInputElement>('input[name="alf-type"]')].filter((box) => box.checked).map((box) => box.value)

/** Wires `#env-kind`, `#env-preset`, the dials and `#alf-types`. */
export const mountEnvPicker = (): EnvPicker => {
  const kind = byId<HTMLSelectElement>('env-kind')
  const preset = byId<HTMLSelectElement>('env-preset')
  preset.append(...options([...textWorldPresets.map((name) => [name, name] as const), ['custom', 'custom (the dials)']]))
  byId('alf-types').append(...taskTypeBoxes())
  for (const [key, id] of Object.entries(dialIds)) {
    const [lo, hi] = dialRanges[key as keyof Dials]
    Object.assign(byId<HTMLInputElement>(id), { min: String(lo), max: String(hi) })
  }
  writeDials(dialsOf(defaultGame)!)
  const listeners: Array<() => void> = []
  const changed = (): void => {
    byId('textworld-fields').hidden = kind.value !== 'textworld'
    byId('alfworld-fields').hidden = kind.value !== 'alfworld'
    listeners.forEach((listener) => listener())
  }
  kind.addEventListener('change', changed)
  preset.addEventListener('change', () => {
    const dials = dialsOf(preset.value)
    if (dials !== undefined) writeDials(dials)
    changed()
  })
  for (const id of Object.values(dialIds))
    byId(id).addEventListener('change', () => {
      const name = settingName(readDials())
      preset.value = textWorldPresets.includes(name) ? name : 'custom'
      changed()
    })
  byId('alf-types').addEventListener('change', changed)
  return {
    value: () => (kind.value === 'alfworld' ? alfWorld(checkedTaskTypes()) : textWorld(settingName(readDials()))),
    onChange: (listener) => listeners.push(listener)
  }
}
