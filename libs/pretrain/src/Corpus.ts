/**
 * A pretraining corpus: `episodes` transcripts, each an environment drawn from the mixture
 * ({@link Mixture}), a seed from the pretraining range ({@link Seeds}), played by the behaviour
 * policy ({@link Behaviour}). The same options and random stream give the same corpus, so a
 * pipeline can generate it once for the tokenizer and again for training, or again on resume.
 *
 * @since 0.1.0
 */
import { EnvError, Numbers, type Env, type Rng } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import * as t from 'io-ts'
import * as Behaviour from './Behaviour.js'
import * as Mixture from './Mixture.js'
import * as Seeds from './Seeds.js'
import * as Transcript from './Transcript.js'

/**
 * What a recipe sets of a corpus (all optional but `episodes`, over {@link defaultSettings}):
 * `episodes`, `mixture`, `invalidShare` (the behaviour policy's), `maxTurns` (a cap on each
 * game's turns, under the environment's own budget).
 *
 * @category codecs
 * @since 0.1.0
 */
export const Settings = t.intersection([
  t.type({ episodes: Numbers.PositiveInt }),
  t.partial({ mixture: Mixture.Mixture, invalidShare: Numbers.Fraction, maxTurns: Numbers.PositiveInt })
])
/** @category models @since 0.1.0 */
export type Settings = t.TypeOf<typeof Settings>

/**
 * The mixture, one invalid command in ten, at most 20 turns a game (an ALFWorld game's
 * budget is 50; 20 turns of it already fill a 512-token context).
 *
 * @category constructors
 * @since 0.1.0
 */
export const defaultSettings: Required<Omit<Settings, 'episodes'>> = {
  mixture: Mixture.defaultMixture,
  invalidShare: Behaviour.defaultOptions.invalidShare,
  maxTurns: 20
}

/**
 * Options of {@link play}: how many games, each game's turn cap, and the behaviour policy's options.
 *
 * @category models
 * @since 0.1.0
 */
export interface PlayOptions {
  readonly episodes: number
  readonly maxTurns: number
  readonly behaviour: Behaviour.Options
}

/**
 * Plays `episodes` games: for each, the environment `draw` gives, a pretraining seed and the
 * behaviour policy's moves, all drawn from `rng`; one environment per source (by name), closed at
 * the end. The first environment failure ends it. Nothing but `make`, `reset`, `step` and `close`
 * is called: no expert.
 *
 * @category constructors
 * @since 0.1.0
 */
export const play =
  (options: PlayOptions) =>
  (draw: (rng: Rng.Rng) => Env.EnvSource) =>
  (rng: Rng.Rng): TE.TaskEither<EnvError.EnvError, ReadonlyArray<Transcript.Transcript>> =>
  async () => {
    const envs = new Map<string, Env.Env>()
    const out: Transcript.Transcript[] = []
    try {
      for (let i = 0; i < options.episodes; i++) {
        const source = draw(rng)
        const env = envs.get(source.name) ?? source.make()
        envs.set(source.name, env)
        const seed = Seeds.draw(rng)
        const game = { maxTurns: Math.min(options.maxTurns, source.maxTurns), behaviour: options.behaviour }
        const transcript = await Transcript.play(game)(env, seed, rng)()
        if (E.isLeft(transcript)) return transcript
        out.push(transcript.right)
      }
    } finally {
      for (const env of envs.values()) await env.close()()
    }
    return E.right(out)
  }

/**
 * The corpus of `settings` (defaults under it): {@link play} on the mixture's environments.
 *
 * @example
 * import { Rng } from '@mtrl/core'
 * import { Corpus } from '@mtrl/pretrain'
 * const transcripts = await Corpus.generate({ episodes: 100 })(Rng.make(0))()
 *
 * @category constructors
 * @since 0.1.0
 */
export const generate =
  (settings: Settings) =>
  (rng: Rng.Rng): TE.TaskEither<EnvError.EnvError, ReadonlyArray<Transcript.Transcript>> =>
  async () => {
    const { episodes, mixture, invalidShare, maxTurns } = { ...defaultSettings, ...settings }
    const sources = new Map<string, Env.EnvSource>()
    try {
      return await play({ episodes, maxTurns, behaviour: { invalidShare } })(Mixture.draw(mixture, sources))(rng)()
    } finally {
      for (const source of sources.values()) source.dispose()
    }
  }

/**
 * The texts a word tokenizer learns from: every transcript's ({@link Transcript.texts}), each
 * command also as `replies` writes it.
 *
 * @example
 * import { Corpus } from '@mtrl/pretrain'
 * declare const transcripts: ReadonlyArray<import('@mtrl/pretrain').Transcript.Transcript>
 * const words = Corpus.texts(transcripts)
 *
 * @category destructors
 * @since 0.1.0
 */
export const texts = (transcripts: ReadonlyArray<Transcript.Transcript>, replies?: (action: string) => ReadonlyArray<string>): ReadonlyArray<string> =>
  transcripts.flatMap(Transcript.texts(replies))
