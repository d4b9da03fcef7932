/**
 * The behaviour policy that plays pretraining games: no plan, no expert, no model. Each turn it
 * plays a command drawn uniformly from the environment's admissible commands, or, with
 * probability `invalidShare`, a free-form command that is not admissible (a verb of one
 * admissible command with the object of another), so that transcripts also show the error
 * messages the environments answer (TextWorld's "You can't see any such thing.", ALFWorld's
 * "Nothing happens.").
 *
 * It sees only the admissible commands and a random stream: it cannot ask an expert what to do,
 * which is what keeps expert behaviour out of a base model (issue 40).
 *
 * @since 0.1.0
 */
import { Numbers, type Rng } from '@mtrl/core'
import * as t from 'io-ts'

/**
 * `invalidShare`: the probability, each turn, of an invalid free-form command instead of an
 * admissible one.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Options = t.type({ invalidShare: Numbers.Fraction })
/** @category models @since 0.1.0 */
export type Options = t.TypeOf<typeof Options>

/**
 * One invalid command in ten.
 *
 * @category constructors
 * @since 0.1.0
 */
export const defaultOptions: Options = { invalidShare: 0.1 }

/**
 * A command the behaviour policy plays, and whether it was drawn from the admissible commands or
 * made up, not admissible (`free-form`: meant to be invalid, see {@link invalidCommand}).
 *
 * @category models
 * @since 0.1.0
 */
export interface Move {
  readonly action: string
  readonly kind: 'admissible' | 'free-form'
}

/** Tries of {@link invalidCommand} before it gives up. */
const tries = 16

/**
 * A command that is not admissible, made of the words of admissible ones: the verb (first word)
 * of one with the rest of another (`take` + `arched door`), or (one try in four) a verb alone;
 * `undefined` when every try was admissible (or there is nothing to recombine). Environments
 * reject nearly all of them; a few they accept (TextWorld's `take key` for the admissible
 * `take key from table`), and the transcript records what the environment said.
 *
 * @example
 * import { Rng } from '@mtrl/core'
 * import { Behaviour } from '@mtrl/pretrain'
 * Behaviour.invalidCommand(['open door', 'take key'], Rng.make(0)) // e.g. 'open key'
 *
 * @category constructors
 * @since 0.1.0
 */
export const invalidCommand = (admissible: ReadonlyArray<string>, rng: Rng.Rng): string | undefined => {
  const words = admissible.map((a) => a.trim().split(/\s+/)).filter((w) => w.length > 0 && w[0] !== '')
  if (words.length === 0) return undefined
  const allowed = new Set(admissible.map((a) => a.trim()))
  for (let i = 0; i < tries; i++) {
    const verb = words[rng.int(words.length)]![0]!
    const object = words[rng.int(words.length)]!.slice(1).join(' ')
    // an object alone is left out: TextWorld reads `west` (of `go west`) as a move
    const candidate = object === '' || rng.int(4) === 0 ? verb : `${verb} ${object}`
    if (!allowed.has(candidate)) return candidate
  }
  return undefined
}

/**
 * The next move: with probability `invalidShare` an {@link invalidCommand} (when one can be made),
 * else an admissible command drawn uniformly; `undefined` when there are no admissible commands
 * (the game cannot be played without a plan).
 *
 * @example
 * import { Rng } from '@mtrl/core'
 * import { Behaviour } from '@mtrl/pretrain'
 * const move = Behaviour.choose(Behaviour.defaultOptions)(['go south', 'take compass'], Rng.make(0))
 *
 * @category constructors
 * @since 0.1.0
 */
export const choose =
  (options: Options) =>
  (admissible: ReadonlyArray<string>, rng: Rng.Rng): Move | undefined => {
    if (admissible.length === 0) return undefined
    if (options.invalidShare > 0 && rng.next() < options.invalidShare) {
      const invalid = invalidCommand(admissible, rng)
      if (invalid !== undefined) return { action: invalid, kind: 'free-form' }
    }
    return { action: admissible[rng.int(admissible.length)]!, kind: 'admissible' }
  }
