/**
 * The tokenizer and chat-template contracts of decision 0002: text to token ids and back, and
 * the token pieces of a conversation, which is only ever appended to (a trajectory is
 * `prompt ++ (action ++ observation)*`; nothing is re-rendered, so loss masks come from where
 * each token came from, never from re-tokenizing text).
 *
 * Defined here, once, so that rollouts, trainers and the policy share them without depending on
 * each other (any tokenizer fits, a remote one included). Implementations live in
 * `@mtrl/policy` (`WordTokenizer`, `HfTokenizer`, `ChatTemplate.make`).
 *
 * @since 0.1.0
 */

/**
 * Ids of the special tokens. `endOfTurn` ends every action. Tokenizers without distinct role
 * tokens may map several roles to one id (ChatML: `<|im_start|>` followed by the role name).
 *
 * @category models
 * @since 0.1.0
 */
export interface SpecialTokens {
  readonly pad: number
  readonly bos: number
  readonly eos: number
  readonly system: number
  readonly user: number
  readonly assistant: number
  readonly endOfTurn: number
}

/**
 * Text to ids and back. `encode` adds no special tokens and does not parse special-token text
 * into special ids for the word tokenizer (environment text can never forge a turn marker);
 * `decode` renders specials as their text.
 *
 * @category models
 * @since 0.1.0
 */
export interface Tokenizer {
  readonly vocabSize: number
  readonly encode: (text: string) => Int32Array
  readonly decode: (ids: ArrayLike<number>) => string
  readonly special: SpecialTokens
}

/**
 * The token pieces of a conversation.
 * - `prompt(system, firstUser)` ends with the assistant header;
 * - `observation(text)` is a user turn followed by the next assistant header;
 * - `stopTokens`: `[endOfTurn]` (+ `eos`), the tokens that end an action;
 * - `reply(text)` (optional): the tokens of a reply the policy did not sample (an expert's), its
 *   stop token included, where the template writes more than the text's encoding before it
 *   (absent: the text's encoding, then `stopTokens[0]`);
 * - `origin` (optional): what the layout follows, and why where it departs from the model's own
 *   chat template.
 *
 * @category models
 * @since 0.1.0
 */
export interface ChatTemplate {
  readonly prompt: (system: string, firstUser: string) => Int32Array
  readonly observation: (text: string) => Int32Array
  readonly stopTokens: ReadonlyArray<number>
  readonly reply?: (text: string) => Int32Array
  readonly origin?: string
}

/**
 * Concatenates id arrays.
 *
 * @example
 * import { Tokenizer } from '@mtrl/core'
 * Tokenizer.concat([[1, 2], Int32Array.of(3)]) // Int32Array [1, 2, 3]
 *
 * @category combinators
 * @since 0.1.0
 */
export const concat = (parts: ReadonlyArray<ArrayLike<number>>): Int32Array => {
  const out = new Int32Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}
