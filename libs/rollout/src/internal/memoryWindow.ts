/**
 * The `window(K)` memory layout: a fresh prompt per turn (the goal, the last K turns as text, the
 * current observation), the slot's KV cache emptied before it; each turn is its own training
 * sample (its prompt and action, local turn index 0), in turn order in `Episode.samples`; the
 * trajectory keeps turns and rewards but no segments.
 */
import * as Memory from '../Memory.js'
import type { LayoutContext, MemoryLayout } from './memoryLayout.js'

/** The `window(turns)` memory layout: it puts tokens in the slots of `session` through `queue`. */
export const memoryWindow = ({ session, template, system, maxNewTokens, contextLength, queue }: LayoutContext, turns: number): MemoryLayout => ({
  startEpisode: () => true,
  startTurn: (episode) => {
    const prompt = template.prompt(system, Memory.renderWindow(episode.goal, episode.past, episode.current, turns))
    session.reset(episode.slot)
    if (prompt.length + maxNewTokens > contextLength) return false
    episode.segments.length = 0
    episode.segments.push({ kind: 'prompt', turn: 0, tokens: prompt })
    queue.push(episode.slot, prompt)
    return true
  },
  actionTurn: () => 0,
  recordStep: (episode, turn, result, action) => {
    const terminal = result.done
    episode.samples.push({
      env: episode.env.spec.name,
      seed: episode.seed,
      groupId: episode.groupId,
      segments: episode.segments.slice(),
      turns: [turn],
      turnRewards: [result.reward],
      won: terminal && result.won,
      truncated: !terminal
    })
    episode.past.push({ observation: episode.current, action })
    episode.current = result.observation
  },
  continueEpisode: () => true,
  segments: () => [],
  samples: (episode) => episode.samples
})
