// An agent loop with the official openai client: a tool call, its result, the next reply.
import OpenAI from 'openai'

const client = new OpenAI({ baseURL: process.env['MTRL_URL'] ?? 'http://127.0.0.1:8000/v1', apiKey: process.env['MTRL_TOKEN'] ?? 'none' })
const model = process.env['MTRL_MODEL'] ?? 'mtrl'
const tools: OpenAI.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'go', parameters: { type: 'object', properties: { direction: { type: 'string' } } } } },
  { type: 'function', function: { name: 'take', parameters: { type: 'object', properties: { object: { type: 'string' } } } } }
]
const messages: OpenAI.ChatCompletionMessageParam[] = [
  { role: 'system', content: 'You are an agent in a house.' },
  { role: 'user', content: 'You are in a kitchen.' }
]
const first = await client.chat.completions.create({ model, messages, tools, temperature: 0 })
const reply = first.choices[0]!.message
for (const call of reply.tool_calls ?? []) if (call.type === 'function') console.log(`tool call: ${call.function.name}(${call.function.arguments})`)
messages.push(reply, ...(reply.tool_calls ?? []).map((c) => ({ role: 'tool' as const, tool_call_id: c.id, content: 'You see a key.' })))
// the server keeps the conversation's tokens: this turn encodes only the new ones
const second = await client.chat.completions.create({ model, messages, tools, temperature: 0 })
console.log(`reply: ${second.choices[0]!.message.content}`)
console.log(`cached prompt tokens: ${second.usage?.prompt_tokens_details?.cached_tokens} of ${second.usage?.prompt_tokens}`)
