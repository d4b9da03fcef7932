import { Decode } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Request.js'

const base = { model: 'm', messages: [{ role: 'user', content: 'hi' }] }
const go = { type: 'function', function: { name: 'go', parameters: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] } } }

const decoded = (body: Record<string, unknown>): _.ChatRequest => {
  const d = Decode.decode('request', _.ChatRequest)({ ...base, ...body })
  if (E.isLeft(d)) throw new Error(Decode.formatError(d.left))
  return d.right
}
const decodeError = (body: Record<string, unknown>): string => {
  const d = Decode.decode('request', _.ChatRequest)({ ...base, ...body })
  return E.isLeft(d) ? Decode.formatError(d.left) : ''
}

describe('Request: messages state the allowed range', () => {
  it.each([
    [{ n: 1000 }, 'n: expected an integer in [1, 16], got 1000'],
    [{ temperature: 3 }, 'temperature: expected a number in [0, 2], got 3'],
    [{ top_p: 0 }, 'top_p: expected a number in (0, 1], got 0'],
    [{ top_logprobs: 21 }, 'top_logprobs: expected an integer in [0, 20], got 21'],
    [{ max_tokens: -1 }, 'max_tokens: expected a positive integer, got -1']
  ])('%j', (body, message) => {
    expect(decodeError(body)).toContain(message)
  })

  it('null still means unset', () => {
    expect(decoded({ n: null, temperature: null }).n).toBeNull()
  })
})

describe('Request.unsupported: settings that change the output are refused by name; tools are checked as OpenAI does', () => {
  it.each([
    [{ logit_bias: { '5': 10 } }, 'logit_bias'],
    [{ functions: [{ name: 'f' }] }, 'functions'],
    [{ function_call: 'auto' }, 'function_call'],
    [{ chat_template_kwargs: { messages: [] } }, 'chat_template_kwargs.messages'],
    [{ chat_template_kwargs: 'x' }, 'chat_template_kwargs'],
    [{ tools: [{ type: 'function', function: { name: '' } }] }, 'tools.0.function.name'],
    [{ tools: [{ type: 'function', function: { name: 'a b' } }] }, 'tools.0.function.name'],
    [{ tools: [go, go] }, 'tools.1.function.name'],
    [{ tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'objet' } } }] }, 'tools.0.function.parameters'],
    [{ tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', required: 'x' } } }] }, 'tools.0.function.parameters'],
    [{ tools: [{ type: 'function', function: { name: 'f', parameters: { $ref: '#/$defs/missing' } } }] }, 'tools.0.function.parameters'],
    [{ tools: [go], tool_choice: { type: 'function', function: { name: 'fly' } } }, 'tool_choice'],
    [{ tool_choice: 'required' }, 'tool_choice']
  ])('%j is refused at %s', (body, param) => {
    const problem = _.unsupported(decoded(body))
    expect(problem?.param).toBe(param)
    expect(problem?.message.startsWith(`${param}: `)).toBe(true)
  })

  it('the message of a schema names what is wrong, and a choice of an unknown tool lists the known ones', () => {
    expect(_.unsupported(decoded({ tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'objet' } } }] }))?.message).toMatch(/type/)
    expect(_.unsupported(decoded({ tools: [go], tool_choice: { type: 'function', function: { name: 'fly' } } }))?.message).toMatch(/"fly".*go/)
  })

  it.each([
    [{}],
    [{ logit_bias: {}, chat_template_kwargs: null, response_format: { type: 'text' } }],
    [{ chat_template_kwargs: { enable_thinking: false } }],
    [{ tools: [go], tool_choice: 'auto' }],
    [{ tools: [go], tool_choice: 'none' }],
    [
      {
        tools: [
          {
            type: 'function',
            function: {
              name: 'f',
              parameters: {
                $schema: 'http://json-schema.org/draft-07/schema#',
                type: 'object',
                definitions: { a: { type: 'string' } },
                properties: { x: { $ref: '#/definitions/a' } }
              }
            }
          }
        ]
      }
    ],
    [
      {
        tools: [
          {
            type: 'function',
            function: {
              name: 'f',
              parameters: {
                $schema: 'https://json-schema.org/draft/2020-12/schema',
                type: 'object',
                $defs: { a: { type: 'string' } },
                properties: { x: { $ref: '#/$defs/a' } }
              }
            }
          }
        ]
      }
    ],
    [{ tools: [{ type: 'function', function: { name: 'get_weather-2', description: 'x' } }] }]
  ])('%j is accepted', (body) => {
    expect(_.unsupported(decoded(body))).toBeUndefined()
  })

  it('a tool-call argument nested past the limit is refused with the reason, not a crash', () => {
    const args = '{"a":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}'
    const request = decoded({
      messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: args } }] }]
    })
    const conversation = _.conversation(request)
    expect(E.isLeft(conversation) && conversation.left.message).toMatch(/tool_calls\.0\.function\.arguments: .*at most 64/)
  })
})
