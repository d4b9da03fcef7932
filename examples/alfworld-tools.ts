// An ALFWorld agent written with the ai SDK and one tool, act(command): generateText runs the
// tool loop. mtrl trains it by RL from its own model calls: `npx mtrl train recipes/agents/alfworld-tools.json`.
// `run.env` is the household task of this episode, `llm` the policy being trained (its OpenAI endpoint).
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import type { Play } from '@mtrl/agent-rl'
import { APICallError, generateText, stepCountIs, tool } from 'ai'
import { z } from 'zod'

const agent: Play.Agent = async (run, llm) => {
  const start = await run.env.reset(run.seed)()
  if (start._tag === 'Left') throw new Error(`reset: ${start.left._tag}`)
  const model = createOpenAICompatible({ name: 'mtrl', baseURL: llm.baseURL, apiKey: llm.apiKey })(llm.model)
  const steps: Play.TurnReport[][] = [[]] // what the environment said of each model call's tool calls
  let finished = { done: false, won: false }
  const act = tool({
    description: 'Run one command in the environment.',
    inputSchema: z.object({ command: z.string() }),
    execute: async ({ command }) => {
      const step = await run.env.step(command)()
      if (step._tag === 'Left') throw new Error(`step: ${step.left._tag}`)
      const { observation, reward, done, won, info } = step.right
      steps[steps.length - 1]!.push({ reward, valid: info.valid, score: info.score, maxScore: info.maxScore })
      finished = { done, won }
      return observation
    }
  })
  await generateText({
    model,
    prompt: `${start.right.goal}\n${start.right.text}`,
    tools: { act },
    temperature: llm.temperature,
    ...(llm.maxTokens === undefined ? {} : { maxOutputTokens: llm.maxTokens }),
    stopWhen: [stepCountIs(run.env.spec.maxTurns), () => finished.done],
    onStepFinish: () => void steps.push([])
  }).catch((e: unknown) => {
    // the conversation outgrew the model's context: the episode ends there, lost
    if (!(APICallError.isInstance(e) && (e.responseBody ?? '').includes('context_length_exceeded'))) throw e
  })
  // one report per model call: its tool calls' rewards summed, invalid when it called no tool
  const turns = steps.slice(0, -1).map((calls): Play.TurnReport => ({
    reward: calls.reduce((sum, c) => sum + c.reward, 0),
    valid: calls.length > 0 && calls.every((c) => c.valid === true),
    score: calls[calls.length - 1]?.score ?? 0,
    maxScore: calls[calls.length - 1]?.maxScore ?? 1
  }))
  return { turns, won: finished.won }
}

export default agent
