/**
 * The `full` memory layout: the whole episode is one growing sequence in the slot's KV cache
 * (prompt, action, observation, action, ...), kept across turns; each observation's tokens are
 * appended once; the episode is its own single training sample.
 */
import * as Layout from '../Layout.js'
import type { LayoutContext, MemoryLayout } from './memoryLayout.js'

/** The `full` memory layout: it puts tokens in the slots of `session` through `queue`. */
export const fullHistory = ({ session, template, system, maxNewTokens, contextLength, queue }: LayoutContext): MemoryLayout => ({
  startEpisode: (episode) => {
    session.reset(episode.slot)
    const prompt = template.prompt(system, Layout.firstUser(episode.goal, episode.current))
    if (prompt.length + maxNewTokens > contextLength) return false
    episode.segments.push({ kind: 'prompt', turn: 0, tokens: prompt })
    queue.push(episode.slot, prompt)
    return true
  },
  startTurn: () => true,
  actionTurn: (episode) => episode.turns.length,
  recordStep: () => undefined,
  continueEpisode: (episode, text) => {
    const observation = template.observation(text)
    const fits = session.length(episode.slot) + observation.length + maxNewTokens <= contextLength
    if (!fits) return false
    episode.segments.push({ kind: 'observation', turn: episode.turns.length - 1, tokens: observation })
    queue.push(episode.slot, observation)
    return true
  },
  segments: (episode) => episode.segments,
  samples: (_episode, trajectory) => [trajectory]
})
