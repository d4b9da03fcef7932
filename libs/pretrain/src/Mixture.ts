/**
 * The mixture of environments and settings pretraining games are drawn from: TextWorld games
 * with rooms, objects and quest length drawn from ranges (the paper's w1..w8, o1..o12, q1..q8),
 * the cooking game (`tw-simple`, training food names), and ALFWorld's training split. Each entry
 * has a weight; an episode draws an entry in proportion to the weights, then its setting.
 *
 * Only training distributions enter: the cooking game's unseen names (`-test`) and ALFWorld's
 * validation splits are not entries at all.
 *
 * @since 0.1.0
 */
import { Decode, Numbers, type Env, type Rng } from '@mtrl/core'
import { AlfWorld } from '@mtrl/env-alfworld'
import { Settings, TextWorld } from '@mtrl/env-textworld'
import * as t from 'io-ts'

const Range = (name: string, lo: number, hi: number) =>
  Decode.withRules(t.tuple([Numbers.NonNegativeInt, Numbers.NonNegativeInt]), ([a, b]) => [
    ...(a < lo || a > hi ? [{ path: ['0'], expected: `${name} from ${lo} to ${hi}`, actual: a }] : []),
    ...(b < a || b > hi ? [{ path: ['1'], expected: `${name} from ${a} (the low end) to ${hi}`, actual: b }] : [])
  ])

/**
 * Generated TextWorld games: `rooms`, `objects`, `questLength` each an inclusive `[low, high]`
 * range, drawn uniformly per episode.
 *
 * @category codecs
 * @since 0.1.0
 */
export const TextWorldEntry = t.intersection([
  t.type({ kind: t.literal('textworld'), rooms: Range('rooms', 1, 12), objects: Range('objects', 0, 24), questLength: Range('questLength', 1, 12) }),
  t.partial({ weight: Numbers.Positive })
])
/** The cooking game (`tw-simple-dense-detailed`, training food names). @category codecs @since 0.1.0 */
export const CookingEntry = t.intersection([t.type({ kind: t.literal('cooking') }), t.partial({ weight: Numbers.Positive })])
/** ALFWorld's training split, every task type. @category codecs @since 0.1.0 */
export const AlfWorldEntry = t.intersection([t.type({ kind: t.literal('alfworld') }), t.partial({ weight: Numbers.Positive })])

/**
 * An entry of a mixture.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Entry = t.union([TextWorldEntry, CookingEntry, AlfWorldEntry])
/** @category models @since 0.1.0 */
export type Entry = t.TypeOf<typeof Entry>

/**
 * A mixture: at least one entry.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Mixture = Decode.withRules(t.array(Entry), (entries) =>
  entries.length === 0 ? [{ path: [], expected: 'at least one entry', actual: entries }] : []
)
/** @category models @since 0.1.0 */
export type Mixture = t.TypeOf<typeof Mixture>

/**
 * The mixture: TextWorld w1..w8, o1..o12, q1..q8 (weight 3), the cooking game (1) and
 * ALFWorld's training split (1).
 *
 * @category constructors
 * @since 0.1.0
 */
export const defaultMixture: Mixture = [
  { kind: 'textworld', rooms: [1, 8], objects: [1, 12], questLength: [1, 8], weight: 3 },
  { kind: 'cooking', weight: 1 },
  { kind: 'alfworld', weight: 1 }
]

/**
 * A short label for lines and tables: `textworld w1-8 o1-12 q1-8 + cooking + alfworld/train`.
 *
 * @category destructors
 * @since 0.1.0
 */
export const label = (mixture: Mixture): string =>
  mixture
    .map((e) => {
      const span = ([lo, hi]: readonly [number, number]): string => (lo === hi ? `${lo}` : `${lo}-${hi}`)
      return e.kind === 'textworld'
        ? `textworld w${span(e.rooms)} o${span(e.objects)} q${span(e.questLength)}`
        : e.kind === 'alfworld'
          ? 'alfworld/train'
          : 'cooking'
    })
    .join(' + ')

/** The cooking game's training setting. */
const cooking: Settings.Settings = { _tag: 'cooking', rewards: 'dense', goal: 'detailed', test: false }

/**
 * Draws an episode's environment: an entry in proportion to the weights, then (TextWorld) its
 * rooms, objects and quest length uniformly. Sources are made once per setting and kept in
 * `cache` (by name); the caller disposes them.
 *
 * @category constructors
 * @since 0.1.0
 */
export const draw =
  (mixture: Mixture, cache: Map<string, Env.EnvSource>) =>
  (rng: Rng.Rng): Env.EnvSource => {
    const weights = mixture.map((e) => e.weight ?? 1)
    let u = rng.next() * weights.reduce((a, b) => a + b, 0)
    const entry = mixture.find((_, i) => (u -= weights[i]!) < 0) ?? mixture[mixture.length - 1]!
    const between = ([lo, hi]: readonly [number, number]): number => lo + rng.int(hi - lo + 1)
    const make = (): Env.EnvSource => {
      switch (entry.kind) {
        case 'textworld':
          return TextWorld.source(Settings.custom(between(entry.rooms), between(entry.objects), between(entry.questLength)))
        case 'cooking':
          return TextWorld.source(cooking)
        case 'alfworld':
          return AlfWorld.source({ split: 'train' })
      }
    }
    const made = make()
    const cached = cache.get(made.name)
    if (cached !== undefined) {
      made.dispose()
      return cached
    }
    cache.set(made.name, made)
    return made
  }
