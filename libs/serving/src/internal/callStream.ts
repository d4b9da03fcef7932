/**
 * A streamed reply's tool calls, argument by argument (as vLLM streams them): a call's first
 * delta carries its id and name once the name is whole, each argument follows as soon as its
 * value is whole (`{"k":v` then `,"k2":v2`), and the reply's end adds what is left (`}`, or the
 * arguments not yet sent). The pieces of a call join to JSON of the arguments the reply parses to.
 */
import { randomBytes } from 'node:crypto'
import type * as Response from '../Response.js'
import type * as ToolCalls from '../ToolCalls.js'
import type * as Partial from './toolFormats/partial.js'
import { indexLike } from './toolFormats/partial.js'

export interface CallStream {
  /** The deltas of what `open` (the calls begun so far) adds to what was sent. */
  readonly update: (open: ReadonlyArray<Partial.OpenCall>) => ReadonlyArray<Response.ToolCallDelta>
  /** The deltas that complete the reply's `calls`, and the calls as sent (ids and arguments text). */
  readonly finish: (calls: ReadonlyArray<ToolCalls.Call>) => {
    readonly deltas: ReadonlyArray<Response.ToolCallDelta>
    readonly calls: ReadonlyArray<Response.ToolCall>
  }
}

const newId = (): string => `call_${randomBytes(8).toString('hex')}`
const member = (first: boolean, [k, v]: readonly [string, unknown]): string => `${first ? '{' : ','}${JSON.stringify(k)}:${JSON.stringify(v)}`

export const make = (): CallStream => {
  // per call begun: its id and name, the keys sent, the arguments text sent; `held` once a key a
  // JavaScript object would reorder (an array index) appears: the rest then goes at the end
  const sent: Array<{ id: string; name: string; keys: string[]; text: string; held: boolean }> = []
  return {
    update: (open) => {
      const out: Response.ToolCallDelta[] = []
      for (const [index, call] of open.entries()) {
        if (index >= sent.length) {
          sent.push({ id: newId(), name: call.name, keys: [], text: '', held: false })
          out.push({ index, id: sent[index]!.id, type: 'function', function: { name: call.name, arguments: '' } })
        }
        const s = sent[index]!
        if (s.name !== call.name) continue
        let piece = ''
        for (const m of call.members.slice(s.keys.length)) {
          if (s.held || indexLike(m[0]) || s.keys.includes(m[0])) {
            s.held = true
            break
          }
          piece += member(s.keys.length === 0, m)
          s.keys.push(m[0])
        }
        if (piece.length > 0) {
          s.text += piece
          out.push({ index, function: { arguments: piece } })
        }
      }
      return out
    },
    finish: (calls) => {
      const deltas: Response.ToolCallDelta[] = []
      const done = calls.map((c, index): Response.ToolCall => {
        const s = sent[index]
        if (s === undefined || s.name !== c.name) {
          const whole: Response.ToolCall = { id: newId(), type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } }
          deltas.push({ index, ...whole })
          return whole
        }
        const rest = Object.entries(c.arguments).filter(([k]) => !s.keys.includes(k))
        const tail = s.keys.length === 0 ? JSON.stringify(Object.fromEntries(rest)) : `${rest.map((m) => member(false, m)).join('')}}`
        deltas.push({ index, function: { arguments: tail } })
        return { id: s.id, type: 'function', function: { name: c.name, arguments: s.text + tail } }
      })
      return { deltas, calls: done }
    }
  }
}
