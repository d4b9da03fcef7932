// The same agent with the ai SDK: generateText runs the tool loop, streamText streams.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { generateText, stepCountIs, streamText, tool } from 'ai'
import { z } from 'zod'

const mtrl = createOpenAICompatible({ name: 'mtrl', baseURL: process.env['MTRL_URL'] ?? 'http://127.0.0.1:8000/v1', apiKey: process.env['MTRL_TOKEN'] ?? 'none' })
const model = mtrl(process.env['MTRL_MODEL'] ?? 'mtrl')
const { text, steps } = await generateText({
  model,
  system: 'You are an agent in a house.',
  prompt: 'You are in a kitchen.',
  temperature: 0,
  tools: {
    go: tool({ description: 'Move', inputSchema: z.object({ direction: z.string() }), execute: async () => 'You see a key.' }),
    take: tool({ description: 'Pick up', inputSchema: z.object({ object: z.string() }), execute: async () => 'Taken.' })
  },
  stopWhen: stepCountIs(3)
})
console.log(`tool calls: ${steps.flatMap((s) => s.toolCalls.map((c) => c.toolName)).join(', ')}; reply: ${text}`)
const streamed = streamText({ model, system: 'You are an agent in a house.', prompt: 'Say hello.', temperature: 0 })
let said = ''
for await (const piece of streamed.textStream) said += piece
console.log(`streamed: ${said}`)
