/**
 * The tokenizer and chat-template contracts of decision 0002, as the policy implements them.
 * They are defined once, in `@mtrl/core` (`Tokenizer`); these are the same types, named here
 * for code that works with the policy.
 *
 * Implementations: {@link WordTokenizer} (built from environment text, for small models trained
 * from scratch), {@link HfTokenizer} (a Hugging Face `tokenizer.json`) and
 * {@link ChatTemplate.make}.
 *
 * @since 0.1.0
 */
import { Tokenizer as Contracts } from '@mtrl/core'

/** @category models @since 0.1.0 */
export type SpecialTokens = Contracts.SpecialTokens
/** @category models @since 0.1.0 */
export type Tokenizer = Contracts.Tokenizer
/** @category models @since 0.1.0 */
export type ChatTemplate = Contracts.ChatTemplate

/**
 * Concatenates id arrays (core's `Tokenizer.concat`).
 *
 * @category combinators
 * @since 0.1.0
 */
export const concat: (parts: ReadonlyArray<ArrayLike<number>>) => Int32Array = Contracts.concat
