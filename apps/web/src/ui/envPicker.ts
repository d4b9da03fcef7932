/**
 * The Train panel's game: TextWorld by preset or by its three dials (kept in step), ALFWorld
 * with a choice of task types, or a preset of any other kind the registry offers (`EnvKind`s,
 * sent by the worker when it is ready).
 */
import type { EnvChoice, EnvKind } from '../worker/protocol.js'
import { byId, el, options } from './dom.js'
import { alfWorld, alfWorldTaskTypes, defaultGame, dialRanges, dialsOf, settingName, textWorld, type Dials } from './environments.js'

export interface EnvPicker {
  /** The game chosen now. */
  readonly value: () => EnvChoice
  /** Called after every change of the game. */
  readonly onChange: (listener: () => void) => void
  /** Offers these kinds (the worker's, when it is ready). */
  readonly setKinds: (kinds: ReadonlyArray<EnvKind>) => void
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

/** Wires `#env-kind`, `#env-preset`, the dials, `#alf-types` and `#other-preset`. */
export const mountEnvPicker = (): EnvPicker => {
  const kind = byId<HTMLSelectElement>('env-kind')
  const preset = byId<HTMLSelectElement>('env-preset')
  const other = byId<HTMLSelectElement>('other-preset')
  let kinds: ReadonlyArray<EnvKind> = []
  let textWorldPresets: ReadonlyArray<string> = [defaultGame]
  const fillPresets = (): void => {
    preset.replaceChildren(...options([...textWorldPresets.map((name) => [name, name] as const), ['custom', 'custom (the dials)']]))
    preset.value = textWorldPresets.includes(settingName(readDials())) ? settingName(readDials()) : 'custom'
  }
  const fillOther = (): void =>
    other.replaceChildren(...options((kinds.find((k) => k.kind === kind.value)?.presets ?? []).map((p, i) => [String(i), p.name] as const)))
  byId('alf-types').append(...taskTypeBoxes())
  for (const [key, id] of Object.entries(dialIds)) {
    const [lo, hi] = dialRanges[key as keyof Dials]
    Object.assign(byId<HTMLInputElement>(id), { min: String(lo), max: String(hi) })
  }
  writeDials(dialsOf(defaultGame)!)
  fillPresets()
  const listeners: Array<() => void> = []
  const changed = (): void => {
    byId('textworld-fields').hidden = kind.value !== 'textworld'
    byId('alfworld-fields').hidden = kind.value !== 'alfworld'
    byId('other-fields').hidden = kind.value === 'textworld' || kind.value === 'alfworld'
    listeners.forEach((listener) => listener())
  }
  kind.addEventListener('change', () => {
    fillOther()
    changed()
  })
  other.addEventListener('change', changed)
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
  const otherGame = (): EnvChoice | undefined => kinds.find((k) => k.kind === kind.value)?.presets[Number(other.value)]?.config
  return {
    value: () =>
      kind.value === 'alfworld'
        ? alfWorld(checkedTaskTypes())
        : kind.value === 'textworld'
          ? textWorld(settingName(readDials()))
          : (otherGame() ?? textWorld(defaultGame)),
    onChange: (listener) => listeners.push(listener),
    setKinds: (offered) => {
      const chosen = kind.value
      kinds = offered
      kind.replaceChildren(...options(kinds.map((k) => [k.kind, k.label] as const)))
      if (kinds.some((k) => k.kind === chosen)) kind.value = chosen
      textWorldPresets = kinds
        .find((k) => k.kind === 'textworld')
        ?.presets.flatMap((p) => (typeof p.config['settings'] === 'string' ? [p.config['settings']] : [])) ?? [defaultGame]
      fillPresets()
      fillOther()
      changed()
    }
  }
}
