/**
 * A word-level tokenizer built from environment text, for small models trained from scratch:
 * the vocabulary is the most frequent pieces of a corpus (words with their leading space,
 * punctuation runs, whitespace runs), and anything else falls back to its UTF-8 bytes, so no
 * text is ever unknown and `decode(encode(text)) === text`.
 *
 * Ids: 0..6 the special tokens (`<|pad|>`, `<|bos|>`, `<|eos|>`, `<|system|>`, `<|user|>`,
 * `<|assistant|>`, `<|end|>`), 7..262 the 256 bytes, then the words by decreasing count (ties
 * by code-unit order): the same corpus always gives the same vocabulary.
 *
 * @since 0.1.0
 */
import * as t from 'io-ts'
import type { SpecialTokens, Tokenizer } from './Tokenizer.js'

/**
 * Texts of the special tokens, in id order.
 *
 * @category constants
 * @since 0.1.0
 */
export const specialTexts: ReadonlyArray<string> = ['<|pad|>', '<|bos|>', '<|eos|>', '<|system|>', '<|user|>', '<|assistant|>', '<|end|>']

const SPECIAL: SpecialTokens = { pad: 0, bos: 1, eos: 2, system: 3, user: 4, assistant: 5, endOfTurn: 6 }
const BYTE0 = specialTexts.length
const WORD0 = BYTE0 + 256

/**
 * A word tokenizer; `words` are the vocabulary entries after the specials and bytes.
 *
 * @category models
 * @since 0.1.0
 */
export interface WordTokenizer extends Tokenizer {
  readonly _tag: 'WordTokenizer'
  readonly words: ReadonlyArray<string>
}

/**
 * Options of {@link build}: `maxVocab` counts specials and bytes; pieces seen fewer than
 * `minCount` times are left to the byte fallback.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Options = t.type({ maxVocab: t.number, minCount: t.number })
/** @category models @since 0.1.0 */
export type Options = t.TypeOf<typeof Options>

/** @category constructors @since 0.1.0 */
export const defaultOptions: Options = { maxVocab: 2048, minCount: 2 }

/**
 * How a tokenizer is saved (`tokenizer.json` of an mtrl checkpoint).
 *
 * @category codecs
 * @since 0.1.0
 */
export const Saved = t.type({ type: t.literal('mtrl-word'), version: t.literal(1), words: t.array(t.string) })
/** @category models @since 0.1.0 */
export type Saved = t.TypeOf<typeof Saved>

const PIECE = / ?[\p{L}\p{N}]+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu

/**
 * The pieces of a text; their concatenation is the text.
 *
 * @category destructors
 * @since 0.1.0
 */
export const pieces = (text: string): string[] => text.match(PIECE) ?? []

const encoder = new TextEncoder()

/**
 * A tokenizer whose vocabulary is `words` (after specials and bytes).
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromWords = (words: ReadonlyArray<string>): WordTokenizer => {
  const index = new Map<string, number>()
  words.forEach((w, i) => {
    if (index.has(w)) throw new Error(`WordTokenizer: duplicate word ${JSON.stringify(w)}`)
    index.set(w, WORD0 + i)
  })
  const encode = (text: string): Int32Array => {
    const out: number[] = []
    for (const piece of pieces(text)) {
      const id = index.get(piece)
      if (id !== undefined) out.push(id)
      else for (const byte of encoder.encode(piece)) out.push(BYTE0 + byte)
    }
    return Int32Array.from(out)
  }
  const decode = (ids: ArrayLike<number>): string => {
    let text = ''
    let bytes: number[] = []
    const flush = (): void => {
      if (bytes.length > 0) text += new TextDecoder('utf-8', { fatal: false }).decode(Uint8Array.from(bytes))
      bytes = []
    }
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!
      if (id >= BYTE0 && id < WORD0) {
        bytes.push(id - BYTE0)
        continue
      }
      flush()
      if (id >= 0 && id < BYTE0) text += specialTexts[id]
      else if (id >= WORD0 && id < WORD0 + words.length) text += words[id - WORD0]
      else throw new RangeError(`WordTokenizer.decode: id ${id} outside the vocabulary [0, ${WORD0 + words.length})`)
    }
    flush()
    return text
  }
  return { _tag: 'WordTokenizer', vocabSize: WORD0 + words.length, encode, decode, special: SPECIAL, words }
}

/**
 * Builds the vocabulary from a corpus (environment descriptions, observations, expert actions).
 *
 * @example
 * import { WordTokenizer } from '@mtrl/policy'
 * const tok = WordTokenizer.build({ maxVocab: 512, minCount: 1 })(['go north', 'open the door'])
 * tok.decode(tok.encode('go north!')) // 'go north!'
 *
 * @category constructors
 * @since 0.1.0
 */
export const build =
  (options: Options = defaultOptions) =>
  (corpus: Iterable<string>): WordTokenizer => {
    const counts = new Map<string, number>()
    for (const text of corpus) for (const piece of pieces(text)) counts.set(piece, (counts.get(piece) ?? 0) + 1)
    const room = Math.max(0, options.maxVocab - WORD0)
    const words = [...counts.entries()]
      .filter(([piece, n]) => n >= options.minCount && encoder.encode(piece).length > 1)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .slice(0, room)
      .map(([piece]) => piece)
    return fromWords(words)
  }

/**
 * The saved form.
 *
 * @category destructors
 * @since 0.1.0
 */
export const toSaved = (tokenizer: WordTokenizer): Saved => ({ type: 'mtrl-word', version: 1, words: [...tokenizer.words] })
