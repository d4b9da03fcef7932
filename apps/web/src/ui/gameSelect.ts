/**
 * A game chooser for the Play, Inspect and Load panels: the Train panel's game, or a preset of
 * any kind the page offers (the registry's, once the worker is ready).
 */
import type { EnvChoice, EnvKind } from '../worker/protocol.js'
import { byId, options } from './dom.js'
import { presetChoices } from './environments.js'

export interface GameSelect {
  /** The game chosen now. */
  readonly value: () => EnvChoice
  /** Offers the presets of these kinds (the worker's, when it is ready). */
  readonly setKinds: (kinds: ReadonlyArray<EnvKind>) => void
}

/** Fills `<select id>` and returns its game, given the Train panel's. */
export const mountGameSelect = (id: string, trainGame: () => EnvChoice): GameSelect => {
  const select = byId<HTMLSelectElement>(id)
  let choices: ReturnType<typeof presetChoices> = []
  const fill = (): void => {
    const chosen = select.value
    select.replaceChildren(...options([['train', "the Train panel's game"], ...choices.map((c) => [c.value, c.text] as const)]))
    if (choices.some((c) => c.value === chosen)) select.value = chosen
  }
  fill()
  return {
    value: () => choices.find((c) => c.value === select.value)?.env ?? trainGame(),
    setKinds: (kinds) => {
      choices = presetChoices(kinds)
      fill()
    }
  }
}
