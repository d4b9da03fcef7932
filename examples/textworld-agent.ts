// A TextWorld agent written as ordinary code with the official openai client. mtrl trains it by
// RL from its own model calls: `npx mtrl train recipes/agents/textworld-agent.json`.
// `run.env` is the game of this episode, `llm` the policy being trained (its OpenAI endpoint).
import type { Play } from '@mtrl/agent-rl'
import OpenAI from 'openai'

const agent: Play.Agent = async (run, llm) => {
  const start = await run.env.reset(run.seed)()
  if (start._tag === 'Left') throw new Error(`reset: ${start.left._tag}`)
  const messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'Reply with the action only, on one line.' },
    { role: 'user', content: `${start.right.goal}\n${start.right.text}` }
  ]
  const turns: Play.TurnReport[] = []
  for (let turn = 0; turn < run.env.spec.maxTurns; turn++) {
    const reply = await llm.client.chat.completions
      .create({ model: llm.model, messages, temperature: llm.temperature, ...(llm.maxTokens === undefined ? {} : { max_tokens: llm.maxTokens }) })
      .catch((e: unknown) => {
        // the conversation outgrew the model's context: the episode ends there, lost
        if (e instanceof OpenAI.BadRequestError && e.code === 'context_length_exceeded') return undefined
        throw e
      })
    if (reply === undefined) break
    const content = reply.choices[0]?.message.content ?? ''
    const action = content.trim().split('\n')[0] ?? ''
    const step = await run.env.step(action)()
    if (step._tag === 'Left') throw new Error(`step: ${step.left._tag}`)
    const { observation, reward, done, won, info } = step.right
    turns.push({ reward, valid: info.valid, score: info.score, maxScore: info.maxScore })
    if (done) return { turns, won }
    // the reply goes back as the server wrote it: its sampled tokens are reused exactly
    messages.push({ role: 'assistant', content }, { role: 'user', content: observation })
  }
  return { turns, won: false }
}

export default agent
