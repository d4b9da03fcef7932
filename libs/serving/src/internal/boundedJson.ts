/**
 * `JSON.parse` under a nesting limit: a body nested deeper than `maxDepth` arrays and objects is
 * refused before it is parsed, so no later walk over it (a decoder, a template, `JSON.stringify`)
 * can overflow the stack. The size limit is the body reader's.
 */
import * as E from 'fp-ts/lib/Either.js'
import { Jinja } from '@mtrl/policy'

/** How deep request bodies and tool-call arguments may nest (vLLM and OpenAI allow far less in practice). */
export const maxDepth = 64

/** The first position where `text` nests deeper than `limit`, or -1 (strings skipped, escapes honoured). */
export const tooDeepAt = (text: string, limit: number): number => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c)
        i++ // backslash: skip the escaped character
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      depth++
      if (depth > limit) return i
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return -1
}

/**
 * The JSON value of `text`, or why it is refused (not JSON, or nested deeper than `limit`).
 * Whole-number floats (`2.0`) are remembered for the template renderer (`Jinja.parseJson`).
 */
export const parse = (text: string, limit: number = maxDepth): E.Either<string, unknown> => {
  const at = tooDeepAt(text, limit)
  if (at >= 0) return E.left(`nested deeper than ${limit} levels (arrays and objects) at character ${at}; at most ${limit} are allowed`)
  try {
    const value = JSON.parse(text) as unknown
    return E.right(Jinja.mayHoldFloats(text) ? Jinja.parseJson(text) : value)
  } catch (error) {
    return E.left((error as Error).message)
  }
}
