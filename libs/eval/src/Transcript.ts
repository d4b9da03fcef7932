/**
 * An episode as text, to read how a policy fails: the prompt, then each turn's action (whether
 * the environment accepted it, its reward) and the observation that followed.
 *
 * @since 0.1.0
 */
import { Decode, type Trajectory } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'

/**
 * @category models
 * @since 0.1.0
 */
export interface Transcript {
  readonly env: string
  readonly seed: number
  readonly won: boolean
  readonly truncated: boolean
  readonly prompt: string
  readonly turns: ReadonlyArray<{ readonly action: string; readonly valid: boolean; readonly reward: number; readonly observation: string }>
}

/**
 * A transcript as read back from a `--transcripts` file (one JSON line each).
 *
 * @category codecs
 * @since 0.3.0
 */
export const Line: t.Type<Transcript, Transcript, unknown> = t.readonly(
  t.type({
    env: t.string,
    seed: t.number,
    won: t.boolean,
    truncated: t.boolean,
    prompt: t.string,
    turns: t.readonlyArray(t.readonly(t.type({ action: t.string, valid: t.boolean, reward: t.number, observation: t.string })))
  })
)

/**
 * The transcripts of a `--transcripts` file's text (blank lines skipped); a line that is not JSON
 * or not a transcript is an error naming `file:line`.
 *
 * @category destructors
 * @since 0.7.0
 */
export const parse = (file: string, text: string): E.Either<string, ReadonlyArray<Transcript>> => {
  const out: Transcript[] = []
  for (const [i, raw] of text.split('\n').entries()) {
    if (raw.trim() === '') continue
    const where = `${file}:${i + 1}`
    const json = E.tryCatch(
      () => JSON.parse(raw) as unknown,
      () => `${where}: not a JSON line (expected a transcript of mtrl eval --transcripts)`
    )
    const line = E.chain((j: unknown) => E.mapLeft(Decode.formatError)(Decode.decode(`transcript (${where})`, Line)(j)))(json)
    if (E.isLeft(line)) return line
    out.push(line.right)
  }
  return E.right(out)
}

/**
 * The transcript of an episode, its token segments decoded with `decode` (a tokenizer's).
 *
 * @example
 * import { Transcript } from '@mtrl/eval'
 * declare const tokenizer: import('@mtrl/core').Tokenizer.Tokenizer
 * declare const episode: import('@mtrl/core').Trajectory.Trajectory
 * const line = JSON.stringify(Transcript.make(tokenizer.decode)(episode))
 *
 * @category constructors
 * @since 0.1.0
 */
export const make =
  (decode: (ids: ArrayLike<number>) => string) =>
  (episode: Trajectory.Trajectory): Transcript => {
    const observations = new Map<number, string>()
    for (const s of episode.segments) if (s.kind === 'observation') observations.set(s.turn, decode(s.tokens))
    const prompt = episode.segments
      .filter((s) => s.kind === 'prompt')
      .map((s) => decode(s.tokens))
      .join('')
    return {
      env: episode.env,
      seed: episode.seed,
      won: episode.won,
      truncated: episode.truncated,
      prompt,
      turns: episode.turns.map((turn, k) => ({
        action: turn.action,
        valid: turn.valid,
        reward: episode.turnRewards[k] ?? 0,
        observation: observations.get(k) ?? ''
      }))
    }
  }
