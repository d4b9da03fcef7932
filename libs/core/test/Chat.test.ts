import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Chat.js'
import * as Decode from '../src/Decode.js'

const message = fc.record({ role: fc.constantFrom('system' as const, 'user' as const, 'assistant' as const), content: fc.string() })

describe('Chat', () => {
  it('a conversation round-trips through JSON and its codec', () => {
    fc.assert(
      fc.property(fc.array(message), (messages) => {
        const decoded = _.Conversation.decode(JSON.parse(JSON.stringify({ messages })))
        expect(decoded).toEqual(E.right({ messages }))
      })
    )
  })

  it('constructors set the role', () => {
    expect([_.system('a'), _.user('b'), _.assistant('c')].map((m) => m.role)).toEqual(['system', 'user', 'assistant'])
  })

  it('a bad role is rejected with the path of the field', () => {
    const result = Decode.decode(
      'line 3',
      _.Conversation
    )({
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'tool', content: 'x' }
      ]
    })
    expect(E.isLeft(result) ? Decode.formatError(result.left) : 'ok').toContain('messages.1.role')
  })
})
