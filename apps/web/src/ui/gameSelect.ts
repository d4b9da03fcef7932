/**
 * A game chooser for the Play, Inspect and Load panels: the Train panel's game, a TextWorld
 * preset, or ALFWorld.
 */
import type { EnvChoice } from '../worker/protocol.js'
import { byId, options } from './dom.js'
import { alfWorld, textWorld, textWorldPresets } from './environments.js'

/** Fills `<select id>` and returns its game, given the Train panel's. */
export const mountGameSelect = (id: string, trainGame: () => EnvChoice): (() => EnvChoice) => {
  const select = byId<HTMLSelectElement>(id)
  select.append(
    ...options([
      ['train', "the Train panel's game"],
      ...textWorldPresets.map((name) => [name, `textworld ${name}`] as const),
      ['alfworld', 'alfworld (all task types)']
    ])
  )
  return () => (select.value === 'train' ? trainGame() : select.value === 'alfworld' ? alfWorld([]) : textWorld(select.value))
}
