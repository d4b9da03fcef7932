/**
 * A tokenizer's vocabulary as xgrammar reads it: every id's token as encoded text and how that
 * text decodes (`byte_level`: GPT-2's byte-to-character map, as Qwen and Llama 3 write their
 * tokens; `byte_fallback`: SentencePiece's `▁` for a space and `<0xNN>` byte tokens; `raw`: the
 * text itself). Special tokens are written empty, so no grammar ever allows one inside its
 * text (the end-of-reply tokens are the grammar's stop tokens instead).
 */
import type { Tokenizer } from '@mtrl/core'

export type VocabType = 'byte_level' | 'byte_fallback' | 'raw'

export interface Vocabulary {
  readonly encoded: ReadonlyArray<string>
  readonly type: VocabType
}

interface AddedToken {
  readonly id: number
  readonly content: string
  readonly special?: boolean
}

/** mtrl's word tokenizer: 7 specials, the 256 bytes, then words (text with their leading space). */
const ofWords = (words: ReadonlyArray<string>): Vocabulary => {
  const hex = (b: number): string => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`
  return {
    type: 'byte_fallback',
    encoded: [...new Array<string>(7).fill(''), ...Array.from({ length: 256 }, (_, b) => hex(b)), ...words.map((w) => w.replaceAll(' ', '\u2581'))]
  }
}

const typeOfDecoder = (decoder: unknown): VocabType => {
  const text = JSON.stringify(decoder ?? null)
  if (text.includes('"ByteLevel"')) return 'byte_level'
  if (text.includes('"ByteFallback"') || text.includes('\u2581')) return 'byte_fallback'
  return 'raw'
}

/** A Hugging Face tokenizer.json: the model's vocabulary (BPE or WordPiece map, Unigram list), then its added tokens. */
const ofHuggingFace = (json: Record<string, unknown>, size: number): Vocabulary => {
  const encoded = new Array<string>(size).fill('')
  const model = (json['model'] ?? {}) as { readonly vocab?: unknown }
  if (Array.isArray(model.vocab)) (model.vocab as ReadonlyArray<readonly [string, number]>).forEach(([piece], id) => (encoded[id] = piece))
  else if (typeof model.vocab === 'object' && model.vocab !== null)
    for (const [piece, id] of Object.entries(model.vocab as Record<string, number>)) if (id < size) encoded[id] = piece
  for (const a of (json['added_tokens'] ?? []) as ReadonlyArray<AddedToken>) if (a.id < size) encoded[a.id] = a.special === true ? '' : a.content
  return { encoded, type: typeOfDecoder(json['decoder']) }
}

/** The vocabulary of `tokenizer`: read from its own tables when it has them, else each id decoded alone. */
export const of = (tokenizer: Tokenizer.Tokenizer): Vocabulary => {
  const t = tokenizer as { readonly _tag?: string; readonly words?: ReadonlyArray<string>; readonly json?: unknown }
  if (t._tag === 'WordTokenizer' && t.words !== undefined) return ofWords(t.words)
  if (t._tag === 'HfTokenizer' && typeof t.json === 'object' && t.json !== null) return ofHuggingFace(t.json as Record<string, unknown>, tokenizer.vocabSize)
  const specials = new Set(Object.values(tokenizer.special))
  return { type: 'raw', encoded: Array.from({ length: tokenizer.vocabSize }, (_, id) => (specials.has(id) ? '' : tokenizer.decode([id]))) }
}

/** GPT-2's byte-level alphabet: the character each byte is written as (printable Latin-1 as itself, the rest from U+0100 on). */
const byteLevelChars = (): ReadonlyArray<string> => {
  const printable = (b: number): boolean => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff)
  let next = 256
  return Array.from({ length: 256 }, (_, b) => String.fromCharCode(printable(b) ? b : next++))
}

/** Bytes that no valid UTF-8 text holds (overlong leads, leads past U+10FFFF). */
const invalidBytes = [0xc0, 0xc1, ...Array.from({ length: 11 }, (_, i) => 0xf5 + i)]

/**
 * The ids of single-byte tokens whose byte never occurs in valid UTF-8: xgrammar 0.1.27 reads
 * bytes leniently and would let a string hold them, which then decodes to U+FFFD.
 */
export const invalidUtf8 = (vocabulary: Vocabulary): ReadonlyArray<number> => {
  const texts = new Set(
    vocabulary.type === 'byte_level'
      ? invalidBytes.map((b) => byteLevelChars()[b]!)
      : vocabulary.type === 'byte_fallback'
        ? invalidBytes.map((b) => `<0x${b.toString(16).toUpperCase()}>`)
        : []
  )
  const ids: number[] = []
  vocabulary.encoded.forEach((text, id) => texts.has(text) && ids.push(id))
  return ids
}
