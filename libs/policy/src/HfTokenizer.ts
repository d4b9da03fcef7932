/**
 * A Hugging Face `tokenizer.json` (BPE, WordPiece, Unigram ... as implemented by
 * `@huggingface/tokenizers`, the pure-JS port of the Rust library) behind the mtrl
 * {@link Tokenizer} contract. Special tokens come from `tokenizer_config.json` and the added
 * tokens: ChatML tokenizers (`<|im_start|>`, `<|im_end|>`) get ChatML turns; others use
 * `bos`/`eos` as turn header and end.
 *
 * @since 0.1.0
 */
import { Tokenizer as HfImpl } from '@huggingface/tokenizers'
import type { SpecialTokens, Tokenizer } from './Tokenizer.js'

/**
 * @category models
 * @since 0.1.0
 */
export interface HfTokenizer extends Tokenizer {
  readonly _tag: 'HfTokenizer'
  /** The parsed `tokenizer.json` and `tokenizer_config.json`, for saving. */
  readonly json: unknown
  readonly config: unknown
}

interface Added {
  readonly id: number
  readonly content: string
}

const tokenText = (value: unknown): string | undefined => {
  if (typeof value === 'string') return value
  if (typeof value === 'object' && value !== null && typeof (value as { content?: unknown }).content === 'string') return (value as { content: string }).content
  return undefined
}

/**
 * A tokenizer from the parsed contents of `tokenizer.json` and `tokenizer_config.json`
 * (`{}` when there is none). Throws when the JSON is not a tokenizer.
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromJson = (json: unknown, config: unknown = {}): HfTokenizer => {
  const impl = new HfImpl(json as object, config as object)
  const added: ReadonlyArray<Added> = ((json as { added_tokens?: ReadonlyArray<Added> }).added_tokens ?? []).map((a) => ({ id: a.id, content: a.content }))
  const vocab = impl.get_vocab(true)
  let vocabSize = 0
  for (const id of vocab.values()) vocabSize = Math.max(vocabSize, id + 1)
  for (const a of added) vocabSize = Math.max(vocabSize, a.id + 1)
  const idOf = (text: string | undefined): number | undefined => (text === undefined ? undefined : impl.token_to_id(text))
  const cfg = (config ?? {}) as Record<string, unknown>
  const imStart = idOf('<|im_start|>')
  const imEnd = idOf('<|im_end|>')
  const eos = idOf(tokenText(cfg['eos_token'])) ?? imEnd ?? idOf('<|endoftext|>') ?? idOf('</s>') ?? added[0]?.id
  if (eos === undefined) throw new Error('HfTokenizer: no end-of-sequence token (eos_token, <|im_end|>, <|endoftext|>, </s>)')
  const bos = idOf(tokenText(cfg['bos_token'])) ?? idOf('<s>') ?? eos
  const pad = idOf(tokenText(cfg['pad_token'])) ?? idOf('<|endoftext|>') ?? eos
  const header = imStart ?? bos
  const special: SpecialTokens = { pad, bos, eos, system: header, user: header, assistant: header, endOfTurn: imEnd ?? eos }
  return {
    _tag: 'HfTokenizer',
    vocabSize,
    encode: (text) => Int32Array.from(impl.encode(text, { add_special_tokens: false }).ids),
    // (the library refuses an empty list: a reply that is only its stop token decodes to '')
    decode: (ids) => (ids.length === 0 ? '' : impl.decode(Array.from(ids), { skip_special_tokens: false, clean_up_tokenization_spaces: false })),
    special,
    json,
    config
  }
}
