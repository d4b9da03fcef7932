/**
 * Chat templates: the token pieces of a conversation, built once per piece and only appended
 * to (decision 0002). One scheme covers every tokenizer: `HEADER role` ... `END`, where
 *
 * - a tokenizer with one special token per role (the word tokenizer) uses the role token as
 *   header and writes no role name: `<|user|> text <|end|>`;
 * - a tokenizer with one shared header token (ChatML: `<|im_start|>`, `<|im_end|>`) writes the
 *   role name after it: `<|im_start|>user\ntext<|im_end|>\n`, as Qwen2 and most chat models do.
 *
 * @since 0.1.0
 */
import { concat, type ChatTemplate, type Tokenizer } from './Tokenizer.js'

export type { ChatTemplate } from './Tokenizer.js'

/**
 * The template for a tokenizer (see the module comment for the two schemes).
 *
 * @example
 * import { ChatTemplate, WordTokenizer } from '@mtrl/policy'
 * const tok = WordTokenizer.build({ maxVocab: 512, minCount: 1 })(['look around'])
 * const template = ChatTemplate.make(tok)
 * const prompt = template.prompt('You are in a house.', 'Find the key.')
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (tokenizer: Tokenizer): ChatTemplate => {
  const s = tokenizer.special
  const perRole = new Set([s.system, s.user, s.assistant]).size === 3
  const stopTokens = s.eos === s.endOfTurn ? [s.endOfTurn] : [s.endOfTurn, s.eos]
  if (perRole) {
    const turn = (role: number, text: string): Int32Array => concat([[role], tokenizer.encode(text), [s.endOfTurn]])
    return {
      prompt: (system, firstUser) => concat([[s.bos], turn(s.system, system), turn(s.user, firstUser), [s.assistant]]),
      observation: (text) => concat([turn(s.user, text), [s.assistant]]),
      stopTokens
    }
  }
  const newline = tokenizer.encode('\n')
  const header = (role: string): Int32Array => concat([[s.assistant], tokenizer.encode(`${role}\n`)])
  const turn = (role: string, text: string): Int32Array => concat([[s.user], tokenizer.encode(`${role}\n${text}`), [s.endOfTurn], newline])
  return {
    prompt: (system, firstUser) => concat([turn('system', system), turn('user', firstUser), header('assistant')]),
    // the action ended with endOfTurn; ChatML puts a newline after every end of turn
    observation: (text) => concat([newline, turn('user', text), header('assistant')]),
    stopTokens
  }
}
