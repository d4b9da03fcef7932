import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { ChatOpenAI } from '@langchain/openai'
import { Agent as AgentsAgent, OpenAIProvider, Runner, setTracingDisabled, tool as agentsTool } from '@openai/agents'
import { Trajectory } from '@mtrl/core'
import { Agent, ChatTemplate } from '@mtrl/policy'
import { Services, TestBackend } from '@mtrl/testing'
import { generateObject, generateText, stepCountIs, streamText, tool } from 'ai'
import * as E from 'fp-ts/lib/Either.js'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import * as http from 'node:http'
import { join } from 'node:path'
import OpenAI from 'openai'
import { zodResponseFormat } from 'openai/helpers/zod'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type * as ChatFormat from '../src/ChatFormat.js'
import * as Completions from '../src/Completions.js'
import * as _ from '../src/Server.js'
import * as Capture from '../src/Capture.js'
import * as Rollouts from '../src/Rollouts.js'
import * as ToolCalls from '../src/ToolCalls.js'
import { teach, type Taught } from './teach.js'

const system = 'You are an agent in a house.'
const tools: ReadonlyArray<ChatFormat.Tool> = [
  {
    type: 'function',
    function: { name: 'go', description: 'Move', parameters: { type: 'object', properties: { direction: { type: 'string' } }, required: ['direction'] } }
  },
  {
    type: 'function',
    function: { name: 'take', description: 'Pick up', parameters: { type: 'object', properties: { object: { type: 'string' } }, required: ['object'] } }
  }
]
const goNorth = ToolCalls.write('hermes')([{ name: 'go', arguments: { direction: 'north' } }])
const start: ChatFormat.Conversation = {
  messages: [
    { role: 'system', content: system },
    { role: 'user', content: 'You are in a kitchen.' }
  ],
  tools
}
const afterGo: ChatFormat.Conversation = {
  messages: [
    ...start.messages,
    { role: 'assistant', content: '', toolCalls: [{ id: 'x', name: 'go', arguments: { direction: 'north' } }] },
    { role: 'tool', content: 'You see a key.', toolCallId: 'x' }
  ],
  tools
}
const hello: ChatFormat.Conversation = {
  messages: [
    { role: 'system', content: system },
    { role: 'user', content: 'Say hello.' }
  ],
  tools: []
}

let taught: Taught
let model: Completions.Model & { readonly close: () => Promise<void> }
let server: _.Server
let client: OpenAI
const rollouts = Rollouts.make()

beforeAll(async () => {
  // wasm: teaching the model takes ~6x less time than on the cpu backend
  await TestBackend.use('wasm')
  const t0 = Date.now()
  taught = teach([
    { conversation: start, reply: goNorth },
    { conversation: afterGo, reply: 'take key' },
    { conversation: hello, reply: 'hello there, friend' }
  ])
  console.log(`taught in ${Date.now() - t0} ms`)
  const agent = Agent.make(taught.policy, undefined, taught.tokenizer, ChatTemplate.make(taught.tokenizer), 512)
  model = Completions.model(agent, { name: 'taught', slots: 8 })
  const started = await _.start({ model, token: 'secret', rollouts })()
  if (E.isLeft(started)) throw new Error(started.left.reason)
  server = started.right
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'secret', maxRetries: 0 })
}, 120_000)

afterAll(async () => {
  await server.close()
  await model.close()
  taught.policy.dispose()
})

const post = async (
  body: string,
  headers: Record<string, string> = {}
): Promise<{ status: number; json: { error?: { message: string; type: string; param: string | null; code: string | null } } }> => {
  const res = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer secret', 'content-type': 'application/json', ...headers },
    body
  })
  return { status: res.status, json: (await res.json()) as never }
}

describe('Server with the official openai client', () => {
  it('lists the model and answers a chat completion with usage, log-probs and the exact token ids', async () => {
    const models = await client.models.list()
    expect(models.data.map((m) => m.id)).toEqual(['taught'])
    const extra = { return_token_ids: true } as Record<string, unknown>
    const done = await client.chat.completions.create({
      model: 'taught',
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: 'Say hello.' }
      ],
      temperature: 0,
      logprobs: true,
      top_logprobs: 2,
      ...extra
    })
    const choice = done.choices[0]!
    expect(choice.message.content).toBe('hello there, friend')
    expect(choice.finish_reason).toBe('stop')
    const prompt = taught.format.render(hello)
    const ids = (done as unknown as { prompt_token_ids: number[] }).prompt_token_ids
    expect(E.isRight(prompt) && Array.from(prompt.right)).toEqual(ids)
    const completion = (choice as unknown as { token_ids: number[] }).token_ids
    expect(completion[completion.length - 1]).toBe(ChatTemplate.make(taught.tokenizer).stopTokens[0])
    expect(taught.tokenizer.decode(completion.slice(0, -1))).toBe('hello there, friend')
    const entries = choice.logprobs!.content!
    expect(entries).toHaveLength(completion.length)
    entries.forEach((e) => {
      expect(e.logprob).toBeLessThanOrEqual(0)
      expect(e.top_logprobs).toHaveLength(2)
      expect(e.top_logprobs[0]!.token).toBe(e.token) // greedy: the chosen token is the most likely
    })
    expect(done.usage).toMatchObject({ prompt_tokens: ids.length, completion_tokens: completion.length, total_tokens: ids.length + completion.length })
  })

  it('ends a reply at a stop string, not generating past it, streamed or not', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'system', content: system },
      { role: 'user', content: 'Say hello.' }
    ]
    const full = await client.chat.completions.create({ model: 'taught', messages, temperature: 0 })
    const cut = await client.chat.completions.create({ model: 'taught', messages, temperature: 0, stop: [', fr'] })
    expect(cut.choices[0]!.message.content).toBe('hello there')
    expect(cut.choices[0]!.finish_reason).toBe('stop')
    expect(cut.usage!.completion_tokens).toBeLessThan(full.usage!.completion_tokens)
    let streamed = ''
    for await (const chunk of await client.chat.completions.create({ model: 'taught', messages, temperature: 0, stop: [', fr'], stream: true }))
      streamed += chunk.choices[0]?.delta.content ?? ''
    expect(streamed).toBe('hello there')
  })

  it('streams the same reply as server-sent events, with usage in the last chunk', async () => {
    const stream = await client.chat.completions.create({
      model: 'taught',
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: 'Say hello.' }
      ],
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true }
    })
    let text = ''
    let finish: string | null = null
    let usage: OpenAI.CompletionUsage | undefined | null
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? ''
      finish = chunk.choices[0]?.finish_reason ?? finish
      usage = chunk.usage ?? usage
    }
    expect(text).toBe('hello there, friend')
    expect(finish).toBe('stop')
    expect(usage?.completion_tokens).toBeGreaterThan(3)
  })

  it('returns tool calls, and the next turn (tool result) reuses the cached conversation', async () => {
    const request = { model: 'taught', temperature: 0, tools: tools as OpenAI.ChatCompletionTool[] }
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'system', content: system },
      { role: 'user', content: 'You are in a kitchen.' }
    ]
    const first = await client.chat.completions.create({ ...request, messages })
    const call = first.choices[0]!.message.tool_calls?.[0]
    expect(first.choices[0]!.finish_reason).toBe('tool_calls')
    expect(first.choices[0]!.message.content).toBeNull()
    expect(call?.type === 'function' && call.function).toEqual({ name: 'go', arguments: '{"direction":"north"}' })
    const next = await client.chat.completions.create({
      ...request,
      messages: [...messages, first.choices[0]!.message, { role: 'tool', tool_call_id: call!.id, content: 'You see a key.' }]
    })
    expect(next.choices[0]!.message.content).toBe('take key')
    expect(next.choices[0]!.finish_reason).toBe('stop')
    expect(next.usage!.prompt_tokens_details?.cached_tokens).toBe(first.usage!.prompt_tokens + first.usage!.completion_tokens)
  })

  it('streams tool calls as tool_calls deltas, argument by argument, never as content', async () => {
    const stream = await client.chat.completions.create({
      model: 'taught',
      temperature: 0,
      tools: tools as OpenAI.ChatCompletionTool[],
      stream: true,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: 'You are in a kitchen.' }
      ]
    })
    let content = ''
    const calls: Array<{ name?: string; arguments?: string }> = []
    let finish: string | null = null
    let pieces = 0
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta
      content += delta?.content ?? ''
      pieces += (delta?.tool_calls ?? []).filter((c) => (c.function?.arguments ?? '') !== '').length
      for (const c of delta?.tool_calls ?? [])
        calls[c.index] = {
          ...(c.function?.name === undefined ? { name: calls[c.index]?.name } : { name: c.function.name }),
          arguments: `${calls[c.index]?.arguments ?? ''}${c.function?.arguments ?? ''}`
        }
      finish = chunk.choices[0]?.finish_reason ?? finish
    }
    expect(content).toBe('')
    expect(calls).toEqual([{ name: 'go', arguments: '{"direction":"north"}' }])
    expect(pieces).toBe(2) // argument by argument: '{"direction":"north"' as soon as its value is whole, '}' at the end
    expect(finish).toBe('tool_calls')
  })

  it('serves concurrent requests with n choices: greedy ones agree, seeded ones repeat', async () => {
    // a conversation it was not taught: sampling spreads
    const ask = (seed: number) =>
      client.chat.completions.create({
        model: 'taught',
        messages: [{ role: 'user', content: 'Tell me a story about a key.' }],
        temperature: 1.5,
        n: 3,
        seed,
        max_tokens: 6
      })
    const [a, b, c, greedy] = await Promise.all([
      ask(1),
      ask(2),
      ask(1),
      client.chat.completions.create({
        model: 'taught',
        messages: [
          { role: 'user', content: 'Say hello.' },
          { role: 'user', content: 'now' }
        ],
        temperature: 0,
        n: 2
      })
    ])
    expect(a!.choices).toHaveLength(3)
    expect(a!.choices.map((x) => x.message.content)).toEqual(c!.choices.map((x) => x.message.content))
    expect(b!.choices.map((x) => x.message.content)).not.toEqual(a!.choices.map((x) => x.message.content))
    expect(greedy!.choices[0]!.message.content).toBe(greedy!.choices[1]!.message.content)
  })
})

describe('structured output and forced tool calls (constrained decoding)', () => {
  const sayHello: OpenAI.ChatCompletionMessageParam[] = [
    { role: 'system', content: system },
    { role: 'user', content: 'Say hello.' }
  ]
  const compass: OpenAI.ChatCompletionTool[] = [
    {
      type: 'function',
      function: {
        name: 'go',
        parameters: {
          type: 'object',
          properties: { direction: { type: 'string', enum: ['north', 'south'] } },
          required: ['direction'],
          additionalProperties: false
        }
      }
    },
    {
      type: 'function',
      function: {
        name: 'take',
        parameters: { type: 'object', properties: { object: { enum: ['key', 'lamp'] } }, required: ['object'], additionalProperties: false }
      }
    }
  ]
  const argsValid = (call: OpenAI.ChatCompletionMessageToolCall): boolean => {
    if (call.type !== 'function') return false
    const args = JSON.parse(call.function.arguments) as Record<string, unknown>
    return call.function.name === 'go' ? ['north', 'south'].includes(args['direction'] as string) : ['key', 'lamp'].includes(args['object'] as string)
  }

  it('openai parse() with a zod schema: a model taught to greet answers a value of the schema', async () => {
    const Reply = z.object({ mood: z.enum(['happy', 'sad']), friendly: z.boolean() })
    const done = await client.chat.completions.parse({
      model: 'taught',
      messages: sayHello,
      temperature: 0,
      response_format: zodResponseFormat(Reply, 'reply')
    })
    const choice = done.choices[0]!
    expect(choice.finish_reason).toBe('stop')
    expect(Reply.parse(choice.message.parsed)).toEqual(choice.message.parsed)
  })

  it('sampled replies under a schema all validate, and the recorded call carries the masks its tokens were drawn under', async () => {
    const schema = {
      type: 'object',
      properties: { answer: { enum: ['yes', 'no'] }, count: { type: 'integer', minimum: 0, maximum: 9 } },
      required: ['answer', 'count'],
      additionalProperties: false
    }
    const run = rollouts.open()
    const llm = new OpenAI({ baseURL: `${server.url}${run.path}`, apiKey: 'secret', maxRetries: 0 })
    const done = await llm.chat.completions.create({
      model: 'taught',
      messages: sayHello,
      temperature: 1,
      n: 4,
      seed: 5,
      logprobs: true,
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema, strict: true } }
    })
    for (const c of done.choices)
      expect(JSON.parse(c.message.content!)).toMatchObject({ answer: expect.stringMatching(/^(yes|no)$/), count: expect.any(Number) })
    const calls = run.calls()
    expect(calls).toHaveLength(4)
    for (const call of calls) {
      expect(call.masks).toHaveLength(call.completion.length)
      call.completion.forEach((id, i) => expect(((call.masks![i]![id >> 5]! >>> (id & 31)) & 1) === 1).toBe(true))
    }
    rollouts.close(run.id)
  })

  it('tool_choice "required": a model taught to greet replies only calls, arguments valid; streamed as a tool_calls delta too', async () => {
    const done = await client.chat.completions.create({ model: 'taught', messages: sayHello, tools: compass, tool_choice: 'required', temperature: 0 })
    const choice = done.choices[0]!
    expect(choice.finish_reason).toBe('tool_calls')
    expect(choice.message.tool_calls!.length).toBeGreaterThan(0)
    expect(choice.message.tool_calls!.every(argsValid)).toBe(true)
    const stream = await client.chat.completions.create({
      model: 'taught',
      messages: sayHello,
      tools: compass,
      tool_choice: 'required',
      temperature: 0,
      stream: true
    })
    const names: string[] = []
    let content = ''
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta.content ?? ''
      for (const c of chunk.choices[0]?.delta.tool_calls ?? []) if (c.function?.name !== undefined) names.push(c.function.name) // a call's first delta names it
    }
    expect(content).toBe('')
    expect(names).toEqual(choice.message.tool_calls!.map((c) => (c.type === 'function' ? c.function.name : '')))
  })

  it('a named tool_choice: exactly one call of that function, even where the model would call another', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'system', content: system },
      { role: 'user', content: 'You are in a kitchen.' }
    ]
    const done = await client.chat.completions.create({
      model: 'taught',
      messages,
      tools: compass,
      tool_choice: { type: 'function', function: { name: 'take' } },
      parallel_tool_calls: false,
      temperature: 0
    })
    const calls = done.choices[0]!.message.tool_calls!
    expect(calls.map((c) => (c.type === 'function' ? c.function.name : ''))).toEqual(['take'])
    expect(argsValid(calls[0]!)).toBe(true)
  })

  it("a strict schema that breaks OpenAI's rules is refused with its path", async () => {
    const { status, json } = await post(
      JSON.stringify({
        model: 'taught',
        messages: sayHello,
        response_format: { type: 'json_schema', json_schema: { name: 'x', strict: true, schema: { type: 'object', properties: { a: { type: 'string' } } } } }
      })
    )
    expect(status).toBe(400)
    expect(json.error?.param).toBe('response_format.json_schema.schema')
    expect(json.error?.message).toMatch(/additionalProperties/)
  })
})

describe('the Responses API (POST /v1/responses) with the official openai client', () => {
  const responseTools: OpenAI.Responses.FunctionTool[] = tools.map((t) => ({
    type: 'function',
    name: t.function.name,
    description: t.function.description ?? null,
    parameters: t.function.parameters as Record<string, unknown>,
    strict: false
  }))

  it('a tool loop: a function_call item, its output sent with previous_response_id, the final text; one token-exact sample', async () => {
    const run = rollouts.open()
    const llm = new OpenAI({ baseURL: `${server.url}${run.path}`, apiKey: 'secret', maxRetries: 0 })
    const first = await llm.responses.create({ model: 'taught', instructions: system, input: 'You are in a kitchen.', tools: responseTools, temperature: 0 })
    expect(first.status).toBe('completed')
    const call = first.output.find((i): i is OpenAI.Responses.ResponseFunctionToolCall => i.type === 'function_call')!
    expect([call.name, JSON.parse(call.arguments)]).toEqual(['go', { direction: 'north' }])
    expect(first.usage!.output_tokens).toBeGreaterThan(0)
    const second = await llm.responses.create({
      model: 'taught',
      instructions: system,
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'You see a key.' }],
      tools: responseTools,
      temperature: 0
    })
    expect(second.output_text).toBe('take key')
    const calls = run.calls()
    expect(calls).toHaveLength(2)
    // the first reply sits id for id in the second prompt: one sample for the trainer
    expect(Array.from(calls[1]!.prompt.subarray(0, calls[0]!.prompt.length + calls[0]!.completion.length))).toEqual([
      ...calls[0]!.prompt,
      ...calls[0]!.completion
    ])
    expect(Capture.samples(calls)).toHaveLength(1)
    rollouts.close(run.id)
  })

  it('the same loop with the whole input sent back (no server memory), and streamed as response events', async () => {
    const first = await client.responses.create({
      model: 'taught',
      instructions: system,
      input: 'You are in a kitchen.',
      tools: responseTools,
      temperature: 0,
      store: false
    })
    const input: OpenAI.Responses.ResponseInputItem[] = [
      { role: 'user', content: 'You are in a kitchen.' },
      ...(first.output as OpenAI.Responses.ResponseInputItem[]),
      ...first.output.flatMap((i) =>
        i.type === 'function_call' ? [{ type: 'function_call_output' as const, call_id: i.call_id, output: 'You see a key.' }] : []
      )
    ]
    const stream = await client.responses.create({ model: 'taught', instructions: system, input, tools: responseTools, temperature: 0, stream: true })
    const types: string[] = []
    let text = ''
    let completed: OpenAI.Responses.Response | undefined
    for await (const event of stream) {
      types.push(event.type)
      if (event.type === 'response.output_text.delta') text += event.delta
      if (event.type === 'response.completed') completed = event.response
    }
    expect(text).toBe('take key')
    expect(completed?.output_text).toBe('take key')
    expect(types[0]).toBe('response.created')
    expect(types).toContain('response.output_item.added')
    expect(types[types.length - 1]).toBe('response.completed')
  })

  it('structured output through text.format, and a forced function call through tool_choice', async () => {
    const format = {
      type: 'json_schema' as const,
      name: 'mood',
      strict: true,
      schema: { type: 'object', properties: { mood: { enum: ['happy', 'sad'] } }, required: ['mood'], additionalProperties: false }
    }
    const done = await client.responses.create({ model: 'taught', instructions: system, input: 'Say hello.', text: { format }, temperature: 0 })
    expect(['happy', 'sad']).toContain((JSON.parse(done.output_text) as { mood: string }).mood)
    const forced = await client.responses.create({
      model: 'taught',
      instructions: system,
      input: 'Say hello.',
      tools: responseTools,
      tool_choice: { type: 'function', name: 'take' },
      temperature: 0
    })
    expect(forced.output.filter((i) => i.type === 'function_call').map((i) => (i as OpenAI.Responses.ResponseFunctionToolCall).name)).toEqual(['take'])
  })

  it('an unknown previous_response_id and a hosted tool are refused with the field', async () => {
    const post = (body: unknown) =>
      fetch(`${server.url}/v1/responses`, {
        method: 'POST',
        headers: { authorization: 'Bearer secret', 'content-type': 'application/json' },
        body: JSON.stringify(body)
      })
    const unknown = await post({ model: 'taught', input: 'hi', previous_response_id: 'resp_nope' })
    expect(unknown.status).toBe(400)
    expect(((await unknown.json()) as { error: { param: string } }).error.param).toBe('previous_response_id')
    const hosted = await post({ model: 'taught', input: 'hi', tools: [{ type: 'web_search' }] })
    expect(hosted.status).toBe(400)
    expect(((await hosted.json()) as { error: { param: string } }).error.param).toBe('tools.0.type')
  })
})

describe('agent frameworks: a tool loop and a structured output each, against the taught model', () => {
  const Mood = z.object({ mood: z.enum(['happy', 'sad']), friendly: z.boolean() })
  const baseURL = () => `${server.url}/v1`

  for (const useResponses of [true, false])
    it(`@openai/agents (a tool loop, streamed too, an outputType and a forced tool call) on the ${useResponses ? 'Responses API (its default, no setOpenAIAPI)' : 'Chat Completions API'}`, async () => {
      setTracingDisabled(true)
      const runner = new Runner({ modelProvider: new OpenAIProvider({ baseURL: baseURL(), apiKey: 'secret', useResponses }) })
      const go = agentsTool({ name: 'go', description: 'Move', parameters: z.object({ direction: z.string() }), execute: async () => 'You see a key.' })
      const take = agentsTool({ name: 'take', description: 'Pick up', parameters: z.object({ object: z.string() }), execute: async () => 'Taken.' })
      const agent = new AgentsAgent({ name: 'house', instructions: system, model: 'taught', tools: [go, take], modelSettings: { temperature: 0 } })
      const loop = await runner.run(agent, 'You are in a kitchen.')
      expect(loop.finalOutput).toBe('take key')
      const streamed = await runner.run(agent, 'You are in a kitchen.', { stream: true })
      let deltas = ''
      for await (const event of streamed.toTextStream()) deltas += event
      await streamed.completed
      expect([deltas, streamed.finalOutput]).toEqual(['take key', 'take key'])
      const typed = new AgentsAgent({ name: 'greeter', instructions: system, model: 'taught', outputType: Mood, modelSettings: { temperature: 0 } })
      const structured = await runner.run(typed, 'Say hello.')
      expect(Mood.parse(structured.finalOutput)).toEqual(structured.finalOutput)
      // toolChoice 'required' where the model would greet: its first answer is a call, whose output ends the run
      // (enums: a free string argument is a string the tiny taught model never closes)
      const north = agentsTool({
        name: 'go',
        description: 'Move',
        parameters: z.object({ direction: z.enum(['north', 'south']) }),
        execute: async () => 'You see a key.'
      })
      const lamp = agentsTool({
        name: 'take',
        description: 'Pick up',
        parameters: z.object({ object: z.enum(['key', 'lamp']) }),
        execute: async () => 'Taken.'
      })
      const forced = new AgentsAgent({
        name: 'forced',
        instructions: system,
        model: 'taught',
        tools: [north, lamp],
        toolUseBehavior: 'stop_on_first_tool',
        modelSettings: { temperature: 0, toolChoice: 'required' }
      })
      const called = await runner.run(forced, 'Say hello.')
      expect(['You see a key.', 'Taken.']).toContain(called.finalOutput)
    })

  it("the ai SDK's OpenAI provider: generateText with tools and streamText on the responses model, generateObject and a forced tool call on both APIs", async () => {
    const openai = createOpenAI({ baseURL: baseURL(), apiKey: 'secret' })
    const { text, steps } = await generateText({
      model: openai.responses('taught'),
      system,
      prompt: 'You are in a kitchen.',
      temperature: 0,
      tools: {
        go: tool({ description: 'Move', inputSchema: z.object({ direction: z.string() }), execute: async () => 'You see a key.' }),
        take: tool({ description: 'Pick up', inputSchema: z.object({ object: z.string() }), execute: async () => 'Taken.' })
      },
      stopWhen: stepCountIs(3)
    })
    expect(steps[0]!.toolCalls.map((c) => c.toolName)).toEqual(['go'])
    expect(text).toBe('take key')
    const streamed = streamText({ model: openai.responses('taught'), system, prompt: 'Say hello.', temperature: 0 })
    let chunks = ''
    for await (const part of streamed.textStream) chunks += part
    expect(chunks).toBe('hello there, friend')
    for (const model of [openai.responses('taught'), openai.chat('taught')]) {
      const { object } = await generateObject({ model, system, prompt: 'Say hello.', schema: Mood, temperature: 0 })
      expect(Mood.parse(object)).toEqual(object)
      // toolChoice 'required' where the model would greet: the step is a call of one of the tools
      const forced = await generateText({
        model,
        system,
        prompt: 'Say hello.',
        temperature: 0,
        toolChoice: 'required',
        tools: {
          go: tool({ description: 'Move', inputSchema: z.object({ direction: z.enum(['north', 'south']) }) }),
          take: tool({ description: 'Pick up', inputSchema: z.object({ object: z.enum(['key', 'lamp']) }) })
        },
        stopWhen: stepCountIs(1)
      })
      expect(forced.steps[0]!.toolCalls.map((c) => c.toolName)).toEqual([expect.stringMatching(/^(go|take)$/)])
    }
  })

  it("LangChain's ChatOpenAI: a tool loop with bindTools, streaming, withStructuredOutput, a forced tool call, and the Responses API", async () => {
    const llm = new ChatOpenAI({ model: 'taught', temperature: 0, apiKey: 'secret', configuration: { baseURL: baseURL() } })
    const toolSpecs = tools.map((t) => ({
      type: 'function' as const,
      function: { name: t.function.name, description: t.function.description ?? '', parameters: t.function.parameters as Record<string, unknown> }
    }))
    const withTools = llm.bindTools(toolSpecs)
    const first = await withTools.invoke([
      ['system', system],
      ['user', 'You are in a kitchen.']
    ])
    expect(first.tool_calls?.map((c) => [c.name, c.args])).toEqual([['go', { direction: 'north' }]])
    const second = await withTools.invoke([
      ['system', system],
      ['user', 'You are in a kitchen.'],
      first,
      { role: 'tool', content: 'You see a key.', tool_call_id: first.tool_calls![0]!.id! }
    ])
    expect(second.content).toBe('take key')
    let streamed = ''
    for await (const chunk of await llm.stream([
      ['system', system],
      ['user', 'Say hello.']
    ]))
      streamed += typeof chunk.content === 'string' ? chunk.content : ''
    expect(streamed).toBe('hello there, friend')
    const mood = await llm.withStructuredOutput(Mood).invoke([
      ['system', system],
      ['user', 'Say hello.']
    ])
    expect(Mood.parse(mood)).toEqual(mood)
    const greet: Array<[string, string]> = [
      ['system', system],
      ['user', 'Say hello.']
    ]
    // tool_choice 'required' where the model would greet: the answer is a call (enum arguments: see @openai/agents above)
    const enums = [
      {
        type: 'function' as const,
        function: { name: 'go', description: 'Move', parameters: { type: 'object', properties: { direction: { enum: ['north', 'south'] } } } }
      },
      {
        type: 'function' as const,
        function: { name: 'take', description: 'Pick up', parameters: { type: 'object', properties: { object: { enum: ['key', 'lamp'] } } } }
      }
    ]
    const forced = await llm.bindTools(enums, { tool_choice: 'required' }).invoke(greet)
    const names = forced.tool_calls?.map((c) => c.name) ?? []
    expect(names.length > 0 && names.every((n) => n === 'go' || n === 'take')).toBe(true) // parallel calls allowed
    // the same model over POST /v1/responses
    const responses = new ChatOpenAI({ model: 'taught', temperature: 0, apiKey: 'secret', useResponsesApi: true, configuration: { baseURL: baseURL() } })
    expect((await responses.invoke(greet)).text).toBe('hello there, friend')
  })
})

describe('Server with the ai SDK (@ai-sdk/openai-compatible)', () => {
  const provider = () => createOpenAICompatible({ name: 'mtrl', baseURL: `${server.url}/v1`, apiKey: 'secret' })

  it('generateText runs the tool loop: a tool call, its result, then the final text', async () => {
    const executed: string[] = []
    const result = await generateText({
      model: provider()('taught'),
      system,
      prompt: 'You are in a kitchen.',
      temperature: 0,
      tools: {
        go: tool({
          description: 'Move',
          inputSchema: z.object({ direction: z.string() }),
          execute: async ({ direction }) => (executed.push(direction), 'You see a key.')
        }),
        take: tool({ description: 'Pick up', inputSchema: z.object({ object: z.string() }), execute: async () => 'taken' })
      },
      stopWhen: stepCountIs(3)
    })
    expect(executed).toEqual(['north'])
    expect(result.steps[0]!.toolCalls.map((c) => [c.toolName, c.input])).toEqual([['go', { direction: 'north' }]])
    expect(result.text).toBe('take key')
  })

  it('streamText streams the reply', async () => {
    const result = streamText({ model: provider()('taught'), system, prompt: 'Say hello.', temperature: 0 })
    let text = ''
    for await (const piece of result.textStream) text += piece
    expect(text).toBe('hello there, friend')
  })
})

// Python's openai package, where the machine has it (.ci/run installs it from the local pip index)
const python = Services.available('python-openai')
const pythonAgent = `
import json, sys
from openai import OpenAI
client = OpenAI(base_url=sys.argv[1], api_key="secret", max_retries=0)
messages = [{"role": "system", "content": sys.argv[2]}, {"role": "user", "content": "Say hello."}]
plain = client.chat.completions.create(model="taught", messages=messages, temperature=0)
streamed = "".join(c.choices[0].delta.content or "" for c in client.chat.completions.create(model="taught", messages=messages, temperature=0, stream=True) if c.choices)
tools = [{"type": "function", "function": {"name": "go", "parameters": {"type": "object", "properties": {"direction": {"type": "string"}}}}},
         {"type": "function", "function": {"name": "take", "parameters": {"type": "object", "properties": {"object": {"type": "string"}}}}}]
call = client.chat.completions.create(model="taught", temperature=0, tools=tools, messages=[messages[0], {"role": "user", "content": "You are in a kitchen."}]).choices[0].message.tool_calls[0]
from pydantic import BaseModel
from typing import Literal
class Mood(BaseModel):
    mood: Literal["happy", "sad"]
    friendly: bool
parsed = client.chat.completions.parse(model="taught", messages=messages, temperature=0, response_format=Mood).choices[0].message.parsed
response = client.responses.create(model="taught", instructions=sys.argv[2], input="Say hello.", temperature=0)
enums = [{"type": "function", "function": {"name": "go", "parameters": {"type": "object", "properties": {"direction": {"enum": ["north", "south"]}}}}},
         {"type": "function", "function": {"name": "take", "parameters": {"type": "object", "properties": {"object": {"enum": ["key", "lamp"]}}}}}]
forced = client.chat.completions.create(model="taught", temperature=0, tools=enums, tool_choice="required", messages=messages).choices[0]
print(json.dumps({"plain": plain.choices[0].message.content, "streamed": streamed, "call": [call.function.name, json.loads(call.function.arguments)],
                  "parsed": type(parsed).__name__, "responses": response.output_text,
                  "forced": [forced.finish_reason, sorted({c.function.name for c in forced.message.tool_calls} - {"go", "take"})]}))
`

describe('agent runs (rollouts): each run has its own routes, its calls recorded token-exact', () => {
  const asTrajectory = (sample: Capture.Sample): Trajectory.Trajectory => ({
    env: 'e',
    seed: 0,
    groupId: 'g',
    segments: sample.segments,
    turns: [],
    turnRewards: [],
    won: false,
    truncated: false
  })
  const postReward = (id: string, body: unknown) =>
    fetch(`${server.url}/rollouts/${id}/reward`, {
      method: 'POST',
      headers: { authorization: 'Bearer secret', 'content-type': 'application/json' },
      body: JSON.stringify(body)
    })
  const agentTurns = async (run: Rollouts.Rollout, edit: (m: OpenAI.ChatCompletionMessage) => OpenAI.ChatCompletionMessageParam) => {
    const llm = new OpenAI({ baseURL: `${server.url}${run.path}`, apiKey: 'secret', maxRetries: 0 })
    const request = { model: 'taught', temperature: 0, tools: tools as OpenAI.ChatCompletionTool[] }
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'system', content: system },
      { role: 'user', content: 'You are in a kitchen.' }
    ]
    const first = (await llm.chat.completions.create({ ...request, messages })).choices[0]!.message
    const call = first.tool_calls![0]!
    const second = await llm.chat.completions.create({
      ...request,
      messages: [...messages, edit(first), { role: 'tool', tool_call_id: call.id, content: 'You see a key.' }]
    })
    return second.choices[0]!.message.content
  }

  it('a two-turn agent is one sample: the first completion sits id for id in the second prompt; the reward arrives', async () => {
    const run = rollouts.open()
    expect(await agentTurns(run, (m) => m)).toBe('take key')
    expect((await postReward(run.id, { reward: 1 })).status).toBe(200)
    expect(await run.rewarded).toEqual({ reward: 1 })
    const [a, b] = run.calls()
    expect([a!.reencoded, b!.reencoded]).toEqual([0, 0])
    expect(Array.from(b!.prompt.subarray(0, a!.prompt.length + a!.completion.length))).toEqual([...a!.prompt, ...a!.completion])
    const samples = Capture.samples(run.calls())
    expect(samples.map((x) => x.calls)).toEqual([2])
    expect(Array.from(Trajectory.tokens(asTrajectory(samples[0]!)))).toEqual([...b!.prompt, ...b!.completion])
    rollouts.close(run.id)
  })

  it('an assistant message the agent changed is re-encoded, counted as drift, and starts a step-wise sample', async () => {
    const run = rollouts.open()
    await agentTurns(run, (m) => ({
      ...m,
      tool_calls: m.tool_calls!.map((c) => (c.type === 'function' ? { ...c, function: { ...c.function, arguments: '{"direction":"south"}' } } : c))
    }))
    expect(run.calls().map((c) => c.reencoded)).toEqual([0, 1])
    expect(Capture.samples(run.calls()).map((x) => x.calls)).toEqual([1, 1])
    rollouts.close(run.id)
  })

  it('unknown and closed runs are 404; a bad reward is 400 and names the field', async () => {
    const run = rollouts.open('run-1')
    expect(() => rollouts.open('run-1')).toThrow(/open already/)
    const bad = await postReward('run-1', { reward: 'high' })
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/reward/)
    expect(run.reward()).toBeUndefined()
    rollouts.close('run-1')
    expect((await postReward('run-1', { reward: 1 })).status).toBe(404)
    const llm = new OpenAI({ baseURL: `${server.url}/rollouts/nope/v1`, apiKey: 'secret', maxRetries: 0 })
    await expect(llm.chat.completions.create({ model: 'taught', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 404 })
  })
})

describe("Server with Python's openai package", () => {
  it.runIf(python)(
    `a Python agent gets the same replies, streamed, with tools, parse() with pydantic, a forced tool call and the Responses API ${Services.tag('python-openai')}`,
    async () => {
      // asynchronously: the server answers from this process
      const out = await new Promise<{ stdout: string; stderr: string }>((resolve) =>
        execFile('python3', ['-c', pythonAgent, `${server.url}/v1`, system], { encoding: 'utf8', timeout: 60_000 }, (_e, stdout, stderr) =>
          resolve({ stdout, stderr })
        )
      )
      expect(out.stderr).toBe('')
      expect(JSON.parse(out.stdout)).toEqual({
        plain: 'hello there, friend',
        streamed: 'hello there, friend',
        call: ['go', { direction: 'north' }],
        parsed: 'Mood',
        responses: 'hello there, friend',
        forced: ['tool_calls', []] // tool_choice "required" where the model would greet: only calls, of the offered tools
      })
    }
  )

  it.runIf(python)(`a Python agent plays in its own run and posts its per-turn rewards ${Services.tag('python-openai')}`, async () => {
    const run = rollouts.open()
    const script = `
import json, sys, urllib.request
from openai import OpenAI
base = sys.argv[1]
llm = OpenAI(base_url=base + "/v1", api_key="secret", max_retries=0)
reply = llm.chat.completions.create(model="taught", temperature=0, messages=[{"role": "system", "content": sys.argv[2]}, {"role": "user", "content": "Say hello."}])
reward = 1.0 if reply.choices[0].message.content.startswith("hello") else 0.0
request = urllib.request.Request(base + "/reward", data=json.dumps({"rewards": [reward]}).encode(), headers={"content-type": "application/json", "authorization": "Bearer secret"})
print(urllib.request.urlopen(request).status)
`
    const out = await new Promise<{ stdout: string; stderr: string }>((resolve) =>
      execFile('python3', ['-c', script, `${server.url}/rollouts/${run.id}`, system], { encoding: 'utf8', timeout: 60_000 }, (_e, stdout, stderr) =>
        resolve({ stdout, stderr })
      )
    )
    expect(out.stderr).toBe('')
    expect(out.stdout.trim()).toBe('200')
    expect(await run.rewarded).toEqual({ rewards: [1] })
    expect(run.calls()).toHaveLength(1)
    rollouts.close(run.id)
  })
})

describe('docs/guides/serve.md: its snippets run against the server', () => {
  const guides = join(__dirname, '../../../docs/guides')
  const run = (command: string, args: ReadonlyArray<string>): Promise<{ stdout: string; stderr: string; code: number }> =>
    new Promise((resolve) =>
      execFile(
        command,
        args,
        { encoding: 'utf8', timeout: 120_000, env: { ...process.env, MTRL_URL: `${server.url}/v1`, MTRL_MODEL: 'taught', MTRL_TOKEN: 'secret' } },
        (e, stdout, stderr) => resolve({ stdout, stderr, code: e === null ? 0 : ((e as { code?: number }).code ?? 1) })
      )
    )
  const tsx = (file: string) => run(process.execPath, [join(__dirname, '../../../node_modules/tsx/dist/cli.mjs'), join(guides, 'serve', file)])

  it('the guide shows each snippet verbatim', () => {
    const guide = readFileSync(join(guides, 'serve.md'), 'utf8')
    for (const file of ['curl.sh', 'openai-client.ts', 'ai-sdk.ts']) expect(guide).toContain(readFileSync(join(guides, 'serve', file), 'utf8').trim())
  })

  it('curl', async () => {
    const out = await run('bash', [join(guides, 'serve', 'curl.sh')])
    expect(JSON.parse(out.stdout).choices[0].message.content).toBe('hello there, friend')
  })

  it('the openai client', async () => {
    const out = await tsx('openai-client.ts')
    expect(out.stderr).toBe('')
    expect(out.stdout).toMatch(/tool call: go\(\{"direction":"north"\}\)\nreply: take key\ncached prompt tokens: \d+ of \d+/)
  })

  it('the ai SDK', async () => {
    const out = await tsx('ai-sdk.ts')
    expect(out.stderr).toBe('')
    expect(out.stdout).toBe('tool calls: go; reply: take key\nstreamed: hello there, friend\n')
  })
})

describe('Server on bad input answers with the OpenAI error object and keeps serving', () => {
  it.each([
    ['malformed JSON', '{"model": ', 400, null],
    ['a wrong type', JSON.stringify({ model: 'taught', messages: [{ role: 'user', content: 'hi' }], temperature: 'hot' }), 400, 'temperature'],
    ['a missing field', JSON.stringify({ model: 'taught' }), 400, 'messages'],
    ['an unknown model', JSON.stringify({ model: 'gpt-9', messages: [{ role: 'user', content: 'hi' }] }), 404, 'model'],
    ['a prompt longer than the context', JSON.stringify({ model: 'taught', messages: [{ role: 'user', content: 'key '.repeat(600) }] }), 400, 'messages'],
    ['max_tokens past the context', JSON.stringify({ model: 'taught', messages: [{ role: 'user', content: 'hi' }], max_tokens: 100000 }), 400, 'max_tokens'],
    ['a conversation the model cannot render', JSON.stringify({ model: 'taught', messages: [{ role: 'assistant', content: 'hi' }] }), 400, 'messages'],
    ['top_logprobs without logprobs', JSON.stringify({ model: 'taught', messages: [{ role: 'user', content: 'hi' }], top_logprobs: 2 }), 400, 'top_logprobs'],
    ['a body nested 200,000 deep', `{"model": "taught", "messages": ${'['.repeat(200_000)}${']'.repeat(200_000)}}`, 400, null],
    ['n past its range', JSON.stringify({ model: 'taught', messages: [{ role: 'user', content: 'hi' }], n: 1000 }), 400, 'n'],
    [
      'an empty tool name',
      JSON.stringify({ model: 'taught', messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: '' } }] }),
      400,
      'tools.0.function.name'
    ],
    [
      'a tool schema that is no JSON Schema',
      JSON.stringify({
        model: 'taught',
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ type: 'function', function: { name: 'go', parameters: { type: 7 } } }]
      }),
      400,
      'tools.0.function.parameters'
    ],
    [
      'a tool_choice naming no tool',
      JSON.stringify({
        model: 'taught',
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ type: 'function', function: { name: 'go' } }],
        tool_choice: { type: 'function', function: { name: 'fly' } }
      }),
      400,
      'tool_choice'
    ],
    ['logit_bias', JSON.stringify({ model: 'taught', messages: [{ role: 'user', content: 'hi' }], logit_bias: { '3': 5 } }), 400, 'logit_bias'],
    [
      'chat_template_kwargs for a model without a Jinja template',
      JSON.stringify({ model: 'taught', messages: [{ role: 'user', content: 'hi' }], chat_template_kwargs: { enable_thinking: false } }),
      400,
      'chat_template_kwargs'
    ],
    [
      'an unsupported penalty',
      JSON.stringify({ model: 'taught', messages: [{ role: 'user', content: 'hi' }], frequency_penalty: 0.5 }),
      400,
      'frequency_penalty'
    ]
  ])('%s', async (_label, body, status, param) => {
    const { status: got, json } = await post(body)
    expect(got).toBe(status)
    if (_label === 'n past its range') expect(json.error?.message).toContain('an integer in [1, 16], got 1000')
    expect(json.error?.message.length).toBeGreaterThan(0)
    expect(json.error?.param ?? null).toBe(param)
    const again = await client.chat.completions.create({
      model: 'taught',
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: 'Say hello.' }
      ],
      temperature: 0,
      max_tokens: 3
    })
    expect(again.choices).toHaveLength(1)
  })

  it('a context overflow has code context_length_exceeded; a missing token is 401; a body over the limit is 413', async () => {
    const long = await post(JSON.stringify({ model: 'taught', messages: [{ role: 'user', content: 'key '.repeat(600) }] }))
    expect(long.json.error?.code).toBe('context_length_exceeded')
    const anonymous = await fetch(`${server.url}/v1/models`)
    expect(anonymous.status).toBe(401)
    const huge = await post(JSON.stringify({ model: 'taught', messages: [{ role: 'user', content: 'x'.repeat(5 << 20) }] }))
    expect(huge.status).toBe(413)
    expect((await fetch(`${server.url}/health`)).status).toBe(200)
  })

  it('refuses requests past maxRequests with 429, and close drains the ones in flight', async () => {
    const small = await _.start({ model, maxRequests: 1 })()
    if (E.isLeft(small)) throw new Error(small.left.reason)
    const body = JSON.stringify({
      model: 'taught',
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: 'Say hello.' }
      ],
      temperature: 0
    })
    // a request in flight: its body arrives in two parts
    const answered = new Promise<{ status: number; text: string }>((resolve) => {
      const req = http.request(`${small.right.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        let text = ''
        res.on('data', (d: Buffer) => (text += d.toString()))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
      })
      req.write(body.slice(0, 10))
      setTimeout(() => req.end(body.slice(10)), 150)
    })
    await new Promise((r) => setTimeout(r, 50))
    const refused = await fetch(`${small.right.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    expect(refused.status).toBe(429)
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded')
    const closing = small.right.close()
    const done = await answered
    expect(done.status).toBe(200)
    expect(JSON.parse(done.text).choices[0].message.content).toBe('hello there, friend')
    await closing
  })
})
