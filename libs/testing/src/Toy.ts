/**
 * Tiny environments with a known optimal policy, for sanity checks of the whole stack (rollout,
 * rewards, advantages, losses) in seconds, the way CleanRL checks on CartPole; plus a word-level
 * tokenizer over their few words (its chat template is `@mtrl/policy`'s `ChatTemplate.make`), so a
 * freshly initialised policy of a dozen tokens can learn them.
 *
 * - {@link bandit}: a two-armed bandit in one turn; `winner` pays 1;
 * - {@link corridor}: three turns; only the first action matters (`winner` wins), the reward
 *   comes at the end, so credit must flow back across turns.
 *
 * Invalid actions (anything but the listed words) are answered with `valid: false`.
 *
 * @since 0.1.0
 */
import type { Env, Tokenizer as Contracts } from '@mtrl/core'
import * as TE from 'fp-ts/lib/TaskEither.js'

/** The words the toy environments use. @category models @since 0.1.0 */
export const words: ReadonlyArray<string> = ['unk', 'left', 'right', 'forward', 'choose', 'start', 'middle', 'end']

const info = (valid: boolean, score: number) => ({ valid, score, maxScore: 1, admissibleActions: ['left', 'right', 'forward'] })

/**
 * A two-armed bandit: one turn, `winner` pays 1, the other arm 0.
 *
 * @category constructors
 * @since 0.1.0
 */
export const bandit = (winner: 'left' | 'right' = 'left'): Env.Env => {
  let over = true
  return {
    spec: { name: 'bandit', maxTurns: 1, actionFormat: 'left or right' },
    reset: () => {
      over = false
      return TE.right({ goal: 'choose', text: 'left right', info: info(true, 0) })
    },
    step: (action) => {
      if (over) return TE.left({ _tag: 'EpisodeOver', env: 'bandit' })
      over = true
      const valid = action === 'left' || action === 'right'
      const won = action === winner
      return TE.right({ observation: 'end', reward: won ? 1 : 0, done: true, won, info: info(valid, won ? 1 : 0) })
    },
    close: () => async () => undefined
  }
}

/**
 * A corridor of `length` turns (3 by default): the first action decides (`winner` wins), the
 * others are `forward` (anything is accepted but only `forward` is valid); reward 1 at the last
 * turn if won, 0 elsewhere.
 *
 * @category constructors
 * @since 0.1.0
 */
export const corridor = (winner: 'left' | 'right' = 'left', length = 3): Env.Env => {
  let turn = -1
  let first = ''
  return {
    spec: { name: 'corridor', maxTurns: length, actionFormat: 'left or right, then forward' },
    reset: () => {
      turn = 0
      first = ''
      return TE.right({ goal: 'choose', text: 'start', info: info(true, 0) })
    },
    step: (action) => {
      if (turn < 0 || turn >= length) return TE.left({ _tag: turn < 0 ? 'NotStarted' : 'EpisodeOver', env: 'corridor' })
      if (turn === 0) first = action
      const valid = turn === 0 ? action === 'left' || action === 'right' : action === 'forward'
      turn += 1
      const done = turn === length
      const won = done && first === winner
      return TE.right({ observation: done ? 'end' : 'middle', reward: won ? 1 : 0, done, won, info: info(valid, won ? 1 : 0) })
    },
    close: () => async () => undefined
  }
}

/**
 * A word-level tokenizer over `vocabulary` (default {@link words}): specials 0..6 (`pad`, `bos`,
 * `eos`, `system`, `user`, `assistant`, `endOfTurn`), then one id per word; unknown words encode
 * as `unk`. `vocabSize = 7 + vocabulary.length`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const tokenizer = (vocabulary: ReadonlyArray<string> = words): Contracts.Tokenizer => {
  const specials = ['<pad>', '<bos>', '<eos>', '<system>', '<user>', '<assistant>', '<eot>']
  const all = [...specials, ...vocabulary]
  const index = new Map(all.map((w, i) => [w, i]))
  const unk = index.get('unk') ?? 7
  return {
    vocabSize: all.length,
    encode: (text) =>
      Int32Array.from(
        text
          .split(/\s+/)
          .filter((w) => w.length > 0)
          .map((w) => index.get(w) ?? unk)
      ),
    decode: (ids) => Array.from(ids, (id) => all[id] ?? 'unk').join(' '),
    special: { pad: 0, bos: 1, eos: 2, system: 3, user: 4, assistant: 5, endOfTurn: 6 }
  }
}
