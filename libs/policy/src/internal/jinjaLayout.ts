/**
 * A rollout layout derived from a Hugging Face chat template by rendering differences, checked
 * at construction on a three-turn conversation of sentinel texts:
 *
 * - prompt = render([system, user], generation prompt);
 * - a reply = the template's text between the generation prompt and an assistant message's
 *   content (usually nothing), the reply's tokens, and the first token of what the template
 *   writes after the content: the end of turn, which must be one special token (the stop token);
 * - observation(text) = what the template writes after that stop token up to the next generation
 *   prompt when a user message `text` follows (rendered afresh each time, so that the template's
 *   own handling of the text, `trim` for instance, applies).
 *
 * The layout is accepted only where rendering a longer conversation appends to the shorter one,
 * in text and in tokens (the pieces encoded apart are the whole encoded at once). Where the system
 * message breaks that (Mistral's templates move it to the last user turn) the observations are
 * derived from the conversation without it and the system message stays where a one-turn
 * conversation puts it; where the template refuses a system message (Gemma 2) it opens the first
 * user message. Every departure is stated in `origin`; anything else is refused with the reason.
 */
import type { Tokenizer } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import * as PyJinja from './pyJinja.js'

/** A message as the template receives it. */
export interface Message {
  readonly role: 'system' | 'user' | 'assistant'
  readonly content: string
}

/** Renders messages (with or without the generation prompt); throws the template's error. `unsupported`: why it cannot render as transformers does. */
export type Render = ((messages: ReadonlyArray<Message>, generationPrompt: boolean) => string) & { readonly unsupported?: string | undefined }

/** How the system message is placed: as the template's own message, folded into the first user message, or kept in the first turn only. */
type Placement = 'message' | 'folded' | 'first-turn'

const system = 'mtrl-system-0'
const users = ['mtrl-user-1', 'mtrl-user-2', 'mtrl-user-3'] as const
// replies that think first: a template that drops earlier replies' thinking (Qwen3's) rewrites them
const replies = ['<think>\nmtrl-thought-1\n</think>\n\nmtrl-reply-1', '<think>\nmtrl-thought-2\n</think>\n\nmtrl-reply-2'] as const

/** A renderer of compiled `source` with the tokenizer's bos/eos strings and `now` for `strftime_now`. */
export const renderer = (source: string, specials: Readonly<Record<string, string>>, now?: () => Date): Render => {
  const compiled = PyJinja.compile(source)
  const render = (messages: ReadonlyArray<Message>, generationPrompt: boolean): string =>
    PyJinja.render({ ...specials, messages, tools: null, documents: null, add_generation_prompt: generationPrompt }, now)(compiled)
  return Object.assign(render, { unsupported: compiled.unsupported })
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e))

const opening = (placement: Placement, systemText: string, user: string): Message[] =>
  placement === 'folded'
    ? [{ role: 'user', content: `${systemText}\n\n${user}` }]
    : [
        { role: 'system', content: systemText },
        { role: 'user', content: user }
      ]

/** The pieces of a layout, checked on the sentinel conversation, or why the template does not append turn by turn. */
interface Pieces {
  readonly open: string
  readonly stop: number
  readonly stopText: string
  /** The messages the observations are rendered after, and their rendering up to the stop token. */
  readonly history: ReadonlyArray<Message>
  readonly before: string
}

const stopOf = (tokenizer: Tokenizer.Tokenizer, specials: ReadonlySet<number>, after: string): E.Either<string, { stop: number; stopText: string }> => {
  const stop = tokenizer.encode(after)[0]
  if (stop === undefined) return E.left('it writes nothing after an assistant message, so no token ends a reply')
  const stopText = tokenizer.decode([stop])
  if (!specials.has(stop) || !after.startsWith(stopText))
    return E.left(`it ends an assistant message with ${JSON.stringify(after.slice(0, 24))}, which does not start with one special token`)
  return E.right({ stop, stopText })
}

/** Checks that the template appends turn by turn from `first` (its messages before the first reply). */
const piecesOf = (
  render: Render,
  tokenizer: Tokenizer.Tokenizer,
  specials: ReadonlySet<number>,
  first: ReadonlyArray<Message>
): E.Either<string, Pieces & { readonly observation: (text: string) => string }> => {
  const p1 = render(first, true)
  const h1 = [...first, { role: 'assistant' as const, content: replies[0] }]
  const p2 = render([...h1, { role: 'user', content: users[1] }], true)
  if (!p2.startsWith(p1))
    return E.left(
      'rendering a second turn rewrites the first: the prompt is not a prefix of the longer conversation (its generation prompt opens a thinking block that earlier replies lose, or it moves a message)'
    )
  const rest = p2.slice(p1.length)
  const at = rest.indexOf(replies[0])
  if (at < 0)
    return E.left(
      "an earlier reply is not written as it was sampled (the template rewrites assistant messages: it drops the thinking of earlier replies, as Qwen3's does)"
    )
  const open = rest.slice(0, at)
  const stop = stopOf(tokenizer, specials, rest.slice(at + replies[0].length))
  if (E.isLeft(stop)) return stop
  const before = p1 + open + replies[0] + stop.right.stopText
  const observation = (text: string): string => {
    const next = render([...h1, { role: 'user', content: text }], true)
    if (!next.startsWith(before)) throw new Error('the chat template rewrote the conversation before this observation')
    return next.slice(before.length)
  }
  const h2 = [...h1, { role: 'user' as const, content: users[1] }, { role: 'assistant' as const, content: replies[1] }]
  const p3 = render([...h2, { role: 'user', content: users[2] }], true)
  const expected = [p1, open + replies[0], stop.right.stopText, observation(users[1]), open + replies[1], stop.right.stopText, observation(users[2])]
  if (p3 !== expected.join('')) return E.left('a third turn is not written as the second was (the template treats turns by position)')
  const tokens = expected.flatMap((piece) => (piece === stop.right.stopText ? [stop.right.stop] : Array.from(tokenizer.encode(piece))))
  const whole = Array.from(tokenizer.encode(p3))
  if (tokens.length !== whole.length || tokens.some((t, i) => t !== whole[i]))
    return E.left('its pieces encoded apart are not the whole conversation encoded at once (the tokenizer merges across a turn boundary)')
  return E.right({ open, ...stop.right, history: h1, before, observation })
}

/** The layout of `render`, or why it cannot be one (every placement of the system message tried). */
export const derive = (render: Render, tokenizer: Tokenizer.Tokenizer, specials: ReadonlySet<number>): E.Either<string, Tokenizer.ChatTemplate> => {
  const attempt = (placement: Placement): E.Either<string, Tokenizer.ChatTemplate> => {
    try {
      const first = placement === 'first-turn' ? [{ role: 'user' as const, content: users[0] }] : opening(placement, system, users[0])
      const pieces = piecesOf(render, tokenizer, specials, first)
      if (E.isLeft(pieces)) return pieces
      const { open, stop, observation } = pieces.right
      const eos = tokenizer.special.eos
      return E.right({
        prompt: (systemText, user) => tokenizer.encode(render(opening(placement === 'folded' ? 'folded' : 'message', systemText, user), true)),
        observation: (text) => tokenizer.encode(observation(text)),
        reply: (text) => Int32Array.from([...tokenizer.encode(open + text), stop]),
        stopTokens: eos === stop ? [stop] : [stop, eos],
        origin: originOf(placement)
      })
    } catch (e) {
      return E.left(message(e))
    }
  }
  const asMessage = attempt('message')
  if (E.isRight(asMessage)) return asMessage
  const fails = (messages: ReadonlyArray<Message>): string | undefined => {
    try {
      render(messages, true)
      return undefined
    } catch (e) {
      return message(e)
    }
  }
  const refusal = fails(opening('message', system, users[0]))
  if (refusal !== undefined) {
    const plain = fails([{ role: 'user', content: users[0] }])
    if (plain !== undefined) return E.left(`it cannot render a plain conversation (system and user messages, no tools): ${refusal}`)
    // the template refuses a system message (Gemma 2): it opens the first user message instead
    const folded = attempt('folded')
    return E.isRight(folded) ? folded : E.left(`${folded.left} (it refuses a system message: ${refusal})`)
  }
  const firstTurn = attempt('first-turn')
  return E.isRight(firstTurn) ? firstTurn : asMessage
}

const originOf = (placement: Placement): string => {
  switch (placement) {
    case 'message':
      return "the model's chat template"
    case 'folded':
      return "the model's chat template, which refuses a system message: the system prompt opens the first user message, followed by a blank line"
    case 'first-turn':
      return "the model's chat template, which rewrites the system message's place as the conversation grows (Mistral's put it in the last user turn): it stays where the template puts it in a one-turn conversation"
  }
}
