import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type * as Response from '../../src/Response.js'
import * as _ from '../../src/internal/callStream.js'

/** What a client holds after the deltas: per index, the name and the joined arguments. */
const joined = (deltas: ReadonlyArray<Response.ToolCallDelta>): Array<{ name: string; arguments: string }> => {
  const out: Array<{ name: string; arguments: string }> = []
  for (const d of deltas) {
    if ('id' in d) out[d.index] = { name: d.function.name, arguments: '' }
    out[d.index]!.arguments += d.function.arguments
  }
  return out
}

const members = fc.uniqueArray(fc.tuple(fc.stringMatching(/^[a-z0-9]{1,4}$/), fc.jsonValue({ maxDepth: 2 })), { selector: ([k]) => k, maxLength: 4 })

describe('callStream', () => {
  it('sends a call by name, then argument by argument, and the end completes it: the pieces join to JSON of the parsed arguments', () => {
    fc.assert(
      fc.property(members, fc.nat(4), (ms, shown) => {
        const stream = _.make()
        const arguments_ = Object.fromEntries(ms) as Record<string, unknown>
        const parsedOrder = Object.entries(arguments_) // array-index keys come first in a JavaScript object
        const deltas = [...stream.update([{ name: 'go', members: [] }])]
        for (let n = 1; n <= Math.min(shown, ms.length); n++) deltas.push(...stream.update([{ name: 'go', members: ms.slice(0, n) }]))
        const done = stream.finish([{ name: 'go', arguments: arguments_ }])
        deltas.push(...done.deltas)
        const [only] = joined(deltas)
        expect(only!.name).toBe('go')
        expect(JSON.parse(only!.arguments)).toEqual(JSON.parse(JSON.stringify(arguments_)))
        expect(done.calls[0]!.function.arguments).toBe(only!.arguments)
        expect(parsedOrder.length).toBe(ms.length)
      })
    )
  })

  it('sends a second call whole when it was never begun while streaming, and keeps the ids of the streamed one', () => {
    const stream = _.make()
    const first = stream.update([{ name: 'go', members: [['direction', 'north']] }])
    expect(first).toEqual([
      { index: 0, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'go', arguments: '' } },
      { index: 0, function: { arguments: '{"direction":"north"' } }
    ])
    const done = stream.finish([
      { name: 'go', arguments: { direction: 'north' } },
      { name: 'take', arguments: { object: 'lamp' } }
    ])
    expect(done.deltas).toEqual([
      { index: 0, function: { arguments: '}' } },
      { index: 1, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'take', arguments: '{"object":"lamp"}' } }
    ])
    expect(done.calls[0]!.id).toBe((first[0] as Response.ToolCall).id)
  })
})
