/**
 * Why a policy lost its TextWorld games, over many played episodes: each episode, named by its
 * environment (`textworld/w2-o3-q4`, as transcripts and metrics name it) and seed, replayed
 * against its game ({@link Diagnosis}), then counted ({@link summarise}) and written as the
 * report `mtrl failures` prints ({@link format}). Reading the episodes (files, transcripts) is
 * the caller's.
 *
 * @since 0.7.0
 */
import * as E from 'fp-ts/lib/Either.js'
import * as Diagnosis from './Diagnosis.js'
import * as Settings from './Settings.js'
import * as TextWorld from './TextWorld.js'

/**
 * What each kind of first mistake is, in a report's words.
 *
 * @category constants
 * @since 0.7.0
 */
export const descriptions: Readonly<Record<Diagnosis.Mistake, string>> = {
  'unknown-name': 'names something the game does not have',
  unparsed: 'not a command',
  elsewhere: 'names something out of reach (another room, a closed container)',
  'not-ready': 'within reach, but its condition fails (not held, closed, open)',
  'no-exit': 'walks where there is no exit',
  detour: 'a valid command that is no step towards the win'
}

/**
 * An episode's diagnosis from its environment's name, seed and commands; Left says why it cannot
 * be replayed (not a TextWorld environment, settings that do not parse, no such game).
 *
 * @example
 * import { FailureReport } from '@mtrl/env-textworld'
 * FailureReport.diagnoseEpisode('textworld/w2-o3-q4', 7, ['look']) // Right: its first mistake a detour
 * FailureReport.diagnoseEpisode('alfworld/train', 7, []) // Left: a failure report replays TextWorld transcripts only
 *
 * @category destructors
 * @since 0.7.0
 */
export const diagnoseEpisode = (env: string, seed: number, commands: ReadonlyArray<string>): E.Either<string, Diagnosis.Diagnosis> => {
  if (!env.startsWith('textworld/')) return E.left(`env ${env}: a failure report replays TextWorld transcripts only`)
  const settings = Settings.parse(env.slice('textworld/'.length))
  if (E.isLeft(settings)) return E.left(`env ${env}: ${settings.left}`)
  const game = TextWorld.gameFor(settings.right)(seed)
  if (E.isLeft(game)) return E.left(`${env} seed ${seed}: ${game.left}`)
  return E.right(Diagnosis.diagnose(game.right)(commands))
}

/**
 * A {@link Diagnosis.Tally} and how many episodes end otherwise when replayed than they were
 * recorded (transcripts of another version of the game).
 *
 * @category models
 * @since 0.7.0
 */
export interface Summary extends Diagnosis.Tally {
  readonly disagreements: number
}

/**
 * Counts episodes, each its diagnosis and whether it was recorded as won.
 *
 * @category destructors
 * @since 0.7.0
 */
export const summarise = (episodes: ReadonlyArray<{ readonly diagnosis: Diagnosis.Diagnosis; readonly won: boolean }>): Summary => ({
  ...Diagnosis.tally(episodes.map((e) => e.diagnosis)),
  disagreements: episodes.filter((e) => e.diagnosis.won !== e.won).length
})

/**
 * Episodes (as transcripts record them: the file they came from, the environment's name, seed,
 * commands, outcome) replayed and summarised per file and environment, in the order first seen;
 * an episode that does not replay is an error naming its file.
 *
 * @category destructors
 * @since 0.7.0
 */
export const report = (
  episodes: ReadonlyArray<{
    readonly file: string
    readonly env: string
    readonly seed: number
    readonly commands: ReadonlyArray<string>
    readonly won: boolean
  }>
): E.Either<string, ReadonlyArray<Summary & { readonly file: string; readonly env: string }>> => {
  const groups = new Map<string, { file: string; env: string; episodes: Array<{ diagnosis: Diagnosis.Diagnosis; won: boolean }> }>()
  for (const { file, env, seed, commands, won } of episodes) {
    const diagnosis = diagnoseEpisode(env, seed, commands)
    if (E.isLeft(diagnosis)) return E.left(`${file}: ${diagnosis.left}`)
    const key = `${file}\u0000${env}`
    const group = groups.get(key) ?? { file, env, episodes: [] }
    group.episodes.push({ diagnosis: diagnosis.right, won })
    groups.set(key, group)
  }
  return E.right([...groups.values()].map(({ file, env, episodes: played }) => ({ file, env, ...summarise(played) })))
}

const percent = (n: number, of: number): string => (of === 0 ? '-' : `${((100 * n) / of).toFixed(1)}%`)

/**
 * The report of one group of episodes (`title`: e.g. its file and environment), one line per
 * fact: episodes, wins and losses; the lost games counted by first mistake, with what each is;
 * the mean turn of those mistakes; wins after a mistake; success per quest ending; a warning
 * when replays disagree with the record.
 *
 * @category destructors
 * @since 0.7.0
 */
export const format = (title: string, s: Summary): ReadonlyArray<string> => [
  `${title}: ${s.episodes} episodes, ${s.won} won (${percent(s.won, s.episodes)}), ${s.lost} lost`,
  '  first mistake of the lost games:',
  ...Diagnosis.mistakes.map(
    (m) => `    ${m.padEnd(13)} ${String(s.firstMistakes[m]).padStart(5)}  ${percent(s.firstMistakes[m], s.lost).padStart(6)}  ${descriptions[m]}`
  ),
  `  mean turn of that mistake (from 0): ${Number.isNaN(s.meanMistakeTurn) ? '-' : s.meanMistakeTurn.toFixed(2)}`,
  `  won after a mistake: ${s.recovered} of ${s.won}`,
  `  success per quest ending: ${s.byQuestEnd.map((e) => `${e.questEnd} ${e.won}/${e.episodes} (${percent(e.won, e.episodes)})`).join(', ')}`,
  ...(s.disagreements > 0 ? [`  warning: ${s.disagreements} episodes end otherwise when replayed (transcripts of another game version?)`] : [])
]
