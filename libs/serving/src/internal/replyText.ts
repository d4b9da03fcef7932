/**
 * One choice's reply text as its tokens arrive: decoded afresh from all of them (a byte-level
 * token may complete a character only later), cut at the first stop string, and how much of it
 * is safe to stream (not a possible start of a stop string or of a tool call, not a trailing
 * half character).
 */
import type { Tokenizer } from '@mtrl/core'
import * as ToolCalls from '../ToolCalls.js'
import { partialSuffix } from './toolFormats/format.js'

export interface ReplyText {
  /** Adds a sampled token; true when the text now contains a stop string (the reply ends there). */
  readonly push: (token: number) => boolean
  /** The text so far, cut at a stop string. */
  readonly text: () => string
  /** The next piece that can be streamed (empty when nothing new is safe yet). */
  readonly delta: () => string
  /** How many characters `delta` has given so far. */
  readonly emitted: () => number
}

export const make = (tokenizer: Tokenizer.Tokenizer, stops: ReadonlyArray<string>, toolSyntax: ToolCalls.Syntax | undefined): ReplyText => {
  const ids: number[] = []
  let text = ''
  let emitted = 0
  let cut = false
  const safe = (): number => {
    let end = text.length
    while (end > 0 && text[end - 1] === '\uFFFD') end--
    if (!cut) for (const s of stops) end = Math.min(end, text.length - partialSuffix(text, s))
    if (toolSyntax !== undefined) end = Math.min(end, ToolCalls.safePrefix(toolSyntax)(text))
    return Math.max(end, emitted)
  }
  return {
    push: (token) => {
      ids.push(token)
      text = tokenizer.decode(ids)
      let at = -1
      for (const s of stops) {
        const i = text.indexOf(s)
        if (i >= 0 && (at < 0 || i < at)) at = i
      }
      if (at >= 0) {
        text = text.slice(0, at)
        cut = true
      }
      return cut
    },
    text: () => text,
    delta: () => {
      const end = safe()
      const piece = text.slice(emitted, end)
      emitted = end
      return piece
    },
    emitted: () => emitted
  }
}
