/**
 * The seeds pretraining games are played on: a range of their own, [2^31, 3e9), above every
 * training seed (SFT demonstrations and RL tasks are drawn below 2^31) and below every held-out
 * seed (`@mtrl/eval`: the old held-out range from 3e9, validation from 3.5e9, test from 4e9; an
 * SFT stage's held-out checks from 3.75e9). So a base model never sees an evaluation game, nor
 * the very games a later stage trains on.
 *
 * @since 0.1.0
 */
import type { Rng } from '@mtrl/core'

/**
 * The first pretraining seed (2^31) and the first seed past the range (3e9).
 *
 * @category constants
 * @since 0.1.0
 */
export const range: { readonly first: number; readonly end: number } = { first: 2_147_483_648, end: 3_000_000_000 }

/**
 * A pretraining seed drawn uniformly from {@link range}.
 *
 * @example
 * import { Rng } from '@mtrl/core'
 * import { Seeds } from '@mtrl/pretrain'
 * const seed = Seeds.draw(Rng.make(0)) // in [2147483648, 3000000000)
 *
 * @category constructors
 * @since 0.1.0
 */
export const draw = (rng: Rng.Rng): number => range.first + rng.int(range.end - range.first)

/**
 * Whether `seed` is a pretraining seed.
 *
 * @category refinements
 * @since 0.1.0
 */
export const isPretrainSeed = (seed: number): boolean => Number.isInteger(seed) && seed >= range.first && seed < range.end
