/**
 * The games the page offers, as recipes name them (`EnvChoice`): TextWorld in the paper's
 * `wW-oO-qQ` notation (W rooms, O objects, a quest of Q actions; §4 of "A Practitioner's Guide to
 * Multi-turn Agentic RL" varies them) and ALFWorld-style household tasks, with their own
 * controls; the kinds and their presets come from the registry (`EnvKind`, sent by the worker),
 * so another registered kind is offered by its presets. Pure.
 */
import { Task } from '@mtrl/env-alfworld'
import { Settings as TwSettings } from '@mtrl/env-textworld'
import * as E from 'fp-ts/lib/Either.js'
import type { EnvChoice, EnvKind } from '../worker/protocol.js'

/** TextWorld's dials: rooms, objects, quest length (the page's ranges). */
export interface Dials {
  readonly rooms: number
  readonly objects: number
  readonly quest: number
}

export const dialRanges: { readonly [K in keyof Dials]: readonly [number, number] } = { rooms: [1, 8], objects: [1, 12], quest: [1, 8] }

/** The default game (`recipes/default.json`'s). */
export const defaultGame = 'w2-o3-q4'

/** ALFWorld's task types (`@mtrl/env-alfworld` `Task.taskTypes`). */
export const alfWorldTaskTypes: ReadonlyArray<string> = Task.taskTypes

/** `w2-o3-q4` from its dials (`@mtrl/env-textworld` `Settings.format`). */
export const settingName = (dials: Dials): string => TwSettings.format({ _tag: 'custom', rooms: dials.rooms, objects: dials.objects, questLength: dials.quest })

/** The dials of `w2-o3-q4` (`Settings.parse`), or undefined for another name or one out of TextWorld's ranges. */
export const dialsOf = (name: string): Dials | undefined => {
  const settings = TwSettings.parse(name)
  return E.isRight(settings) && settings.right._tag === 'custom'
    ? { rooms: settings.right.rooms, objects: settings.right.objects, quest: settings.right.questLength }
    : undefined
}

export const textWorld = (name: string): EnvChoice => ({ kind: 'textworld', settings: name })

/** ALFWorld's training games of `taskTypes` (all of them when empty). */
export const alfWorld = (taskTypes: ReadonlyArray<string>): EnvChoice => ({
  kind: 'alfworld',
  settings: taskTypes.length === 0 || taskTypes.length === alfWorldTaskTypes.length ? { split: 'train' } : { split: 'train', taskTypes }
})

/** A short label: `textworld w2-o3-q4`, `alfworld (2 task types)`, `guess {"high":16}`. */
export const label = (env: EnvChoice): string => {
  const { kind, ...rest } = env
  if (kind === 'textworld') return `textworld ${typeof env['settings'] === 'string' ? env['settings'] : JSON.stringify(env['settings'])}`
  if (kind !== 'alfworld') return `${kind} ${JSON.stringify(rest)}`
  const types = (env['settings'] as { readonly taskTypes?: ReadonlyArray<string> }).taskTypes
  return types === undefined ? 'alfworld (all task types)' : `alfworld (${types.join(', ')})`
}

/** Every preset of the kinds, as `[kind:index, 'label name']` choices, and the game each stands for. */
export const presetChoices = (kinds: ReadonlyArray<EnvKind>): ReadonlyArray<{ readonly value: string; readonly text: string; readonly env: EnvChoice }> =>
  kinds.flatMap((k) => k.presets.map((preset, i) => ({ value: `${k.kind}:${i}`, text: `${k.kind} ${preset.name}`, env: preset.config })))
