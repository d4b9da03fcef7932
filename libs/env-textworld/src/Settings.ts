/**
 * Which TextWorld game to make: a generated game named in the paper's `wW-oO-qQ` notation
 * (W rooms, at least O objects, a quest whose shortest winning plan has Q actions), or the
 * fixed-house cooking game of TextWorld's `tw-simple` challenge.
 *
 * Settings enter mtrl from recipes and CLI flags, so they are io-ts codecs; the string form
 * (`"w2-o3-q4"`, `"tw-simple"`, `"tw-simple-dense-detailed-test"`) decodes too.
 *
 * Paper: Wang & Ammanabrolu 2025, "A Practitioner's Guide to Multi-turn Agentic RL", §4
 * (environment complexity w2-o3-q4 ... w8-o12-q4) and §6 (tw-simple reward density).
 *
 * @since 0.1.0
 */
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'

const intIn = (name: string, lo: number, hi: number) =>
  t.refinement(t.number, (n): boolean => Number.isInteger(n) && n >= lo && n <= hi, `${name} (an integer in [${lo}, ${hi}])`)

/**
 * How much of the quest the objective text reveals: `steps` (TextWorld's generated
 * walkthrough-like instructions), `brief` (the final goal only) or `none`.
 *
 * @category codecs
 * @since 0.1.0
 */
export const ObjectiveDetail = t.keyof({ steps: null, brief: null, none: null })
/** @category models @since 0.1.0 */
export type ObjectiveDetail = t.TypeOf<typeof ObjectiveDetail>

/**
 * A generated game. `objective` defaults to `steps` (what TextWorld's `tw-make custom` gives).
 *
 * @category codecs
 * @since 0.1.0
 */
export const Custom = t.intersection([
  t.type({
    _tag: t.literal('custom'),
    rooms: intIn('rooms', 1, 12),
    objects: intIn('objects', 0, 24),
    questLength: intIn('questLength', 1, 12)
  }),
  t.partial({ objective: ObjectiveDetail })
])
/** @category models @since 0.1.0 */
export type Custom = t.TypeOf<typeof Custom>

/**
 * Reward density of the cooking game (TextWorld `--rewards`).
 *
 * @category codecs
 * @since 0.1.0
 */
export const RewardDensity = t.keyof({ sparse: null, balanced: null, dense: null })
/** @category models @since 0.1.0 */
export type RewardDensity = t.TypeOf<typeof RewardDensity>

/**
 * Objective text of the cooking game (TextWorld `--goal`).
 *
 * @category codecs
 * @since 0.1.0
 */
export const GoalDetail = t.keyof({ detailed: null, brief: null, none: null })
/** @category models @since 0.1.0 */
export type GoalDetail = t.TypeOf<typeof GoalDetail>

/**
 * The cooking game (`tw-simple`). `test` draws the target food's name from unseen names.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Cooking = t.type({ _tag: t.literal('cooking'), rewards: RewardDensity, goal: GoalDetail, test: t.boolean })
/** @category models @since 0.1.0 */
export type Cooking = t.TypeOf<typeof Cooking>

/**
 * Either kind of game.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Settings = t.union([Custom, Cooking])
/** @category models @since 0.1.0 */
export type Settings = t.TypeOf<typeof Settings>

const customPattern = /^w(\d+)-o(\d+)-q(\d+)$/
const cookingPattern = /^tw-simple(?:-(sparse|balanced|dense))?(?:-(detailed|brief|none))?(-test)?$/

/**
 * Parses `"w2-o3-q4"` or `"tw-simple[-<rewards>][-<goal>][-test]"` (defaults: dense, detailed).
 *
 * @example
 * import { Settings } from '@mtrl/env-textworld'
 * Settings.parse('w2-o3-q4') // Right({ _tag: 'custom', rooms: 2, objects: 3, questLength: 4 })
 *
 * @category constructors
 * @since 0.1.0
 */
export const parse = (text: string): E.Either<string, Settings> => {
  const s = text.trim().toLowerCase()
  const custom = customPattern.exec(s)
  const candidate: unknown =
    custom !== null
      ? { _tag: 'custom', rooms: Number(custom[1]), objects: Number(custom[2]), questLength: Number(custom[3]) }
      : (() => {
          const cooking = cookingPattern.exec(s)
          return cooking === null
            ? undefined
            : { _tag: 'cooking', rewards: cooking[1] ?? 'dense', goal: cooking[2] ?? 'detailed', test: cooking[3] !== undefined }
        })()
  if (candidate === undefined)
    return E.left(`not a TextWorld setting: "${text}" (expected wW-oO-qQ or tw-simple[-sparse|-balanced|-dense][-detailed|-brief|-none][-test])`)
  return E.mapLeft(() => `out of range: "${text}" (rooms 1-12, objects 0-24, quest length 1-12)`)(Settings.decode(candidate))
}

/**
 * The short name: `w2-o3-q4` or `tw-simple-dense-detailed[-test]`. `parse(format(s))` gives
 * back `s` (except a custom game's `objective`, which the notation does not carry).
 *
 * @category destructors
 * @since 0.1.0
 */
export const format = (settings: Settings): string => {
  switch (settings._tag) {
    case 'custom':
      return `w${settings.rooms}-o${settings.objects}-q${settings.questLength}`
    case 'cooking':
      return `tw-simple-${settings.rewards}-${settings.goal}${settings.test ? '-test' : ''}`
  }
}

/**
 * Settings from their string form, as a codec (for recipes that write `"w2-o3-q4"`).
 *
 * @category codecs
 * @since 0.1.0
 */
export const SettingsFromString = new t.Type<Settings, string, unknown>(
  'SettingsFromString',
  Settings.is,
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'a setting name such as "w2-o3-q4" or "tw-simple"')
    const parsed = parse(u)
    return E.isRight(parsed) ? t.success(parsed.right) : t.failure(u, c, parsed.left)
  },
  format
)

/**
 * What recipes may write: the object form or the string form.
 *
 * @category codecs
 * @since 0.1.0
 */
export const SettingsInput = t.union([Settings, SettingsFromString])
/** @category models @since 0.1.0 */
export type SettingsInput = t.TypeOf<typeof SettingsInput>

/**
 * A custom setting from numbers (what `--rooms --objects --quest` give).
 *
 * @category constructors
 * @since 0.1.0
 */
export const custom = (rooms: number, objects: number, questLength: number, objective: ObjectiveDetail = 'steps'): Custom => ({
  _tag: 'custom',
  rooms,
  objects,
  questLength,
  objective
})

/**
 * A cooking setting; defaults are the repo's: dense rewards, detailed goal, training names.
 *
 * @category constructors
 * @since 0.1.0
 */
export const cooking = (rewards: RewardDensity = 'dense', goal: GoalDetail = 'detailed', test = false): Cooking => ({
  _tag: 'cooking',
  rewards,
  goal,
  test
})

/**
 * The length of the longest expert plan: `questLength`, or 12 for the cooking game (its
 * walkthrough has 8, 9 or 12 actions depending on where the food is).
 *
 * @category destructors
 * @since 0.1.0
 */
export const longestPlan = (settings: Settings): number => (settings._tag === 'custom' ? settings.questLength : 12)
