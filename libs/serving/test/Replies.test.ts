import { describe, expect, it } from 'vitest'
import * as _ from '../src/Replies.js'

describe('Replies', () => {
  it('knows a reply by the prompt it followed and its text: the same text after another prompt is not it', () => {
    const replies = _.make()
    const reply = { content: 'go north', toolCalls: [] }
    replies.remember(Int32Array.of(1, 2, 3), reply, Int32Array.of(7, 8, 6))
    replies.remember(Int32Array.of(1, 2, 4), reply, Int32Array.of(9, 6))
    expect(Array.from(replies.idsOf(Int32Array.of(1, 2, 3), reply)!)).toEqual([7, 8, 6])
    expect(Array.from(replies.idsOf(Int32Array.of(1, 2, 4), reply)!)).toEqual([9, 6])
    expect(replies.idsOf(Int32Array.of(1, 2), reply)).toBeUndefined()
    expect(replies.idsOf(Int32Array.of(1, 2, 3), { content: 'go north', toolCalls: [{ name: 'go', arguments: {} }] })).toBeUndefined()
  })

  it('keeps at most its capacity, forgetting the oldest first', () => {
    const replies = _.make(2)
    const at = (n: number) => Int32Array.of(n)
    for (const n of [1, 2, 3]) replies.remember(at(n), { content: 'x', toolCalls: [] }, at(n))
    expect(replies.idsOf(at(1), { content: 'x', toolCalls: [] })).toBeUndefined()
    expect(Array.from(replies.idsOf(at(3), { content: 'x', toolCalls: [] })!)).toEqual([3])
  })
})
