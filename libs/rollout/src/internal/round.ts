/**
 * One round of the lockstep loop: every open episode plays one turn. The slots' new context
 * (prompts, observations) is appended in one call; exploration moves are chosen and appended;
 * the other slots sample their replies in one `generate` call; every environment steps; each
 * turn is recorded and ends its episode or brings its next observation, and a slot whose episode
 * ended starts its next one under fixed-turn batching.
 */
import type { Env, Sampler } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import type { Ending } from '../Rollout.js'
import { exploredChoice, sampledChoice, turnOf, type ChosenAction } from './chosenAction.js'
import { appendNow } from './contextQueue.js'
import { beginEpisode, finishEpisode } from './episodeLifecycle.js'
import { explorationMoves } from './exploration.js'
import type { OpenEpisode } from './openEpisode.js'
import type { RolloutState } from './rolloutState.js'

/** Prepares every open episode's context for its turn; ends those it does not fit (`contextLimit`). */
const startTurns = (state: RolloutState): void => {
  for (const [slot, episode] of [...state.open]) {
    if (state.layout.startTurn(episode)) continue
    state.open.delete(slot)
    finishEpisode(state, episode, false, 'contextLimit')
  }
}

/** Samples the replies of `slots` in one call, each slot from its own stream. */
const generate = (state: RolloutState, slots: ReadonlyArray<number>): ReadonlyArray<Sampler.Generation> => {
  const { options, generator } = state
  return generator.session.generate(slots, {
    maxNewTokens: options.maxNewTokens,
    temperature: options.temperature,
    ...(options.topK === undefined ? {} : { topK: options.topK }),
    ...(options.topP === undefined ? {} : { topP: options.topP }),
    stopTokens: generator.template.stopTokens,
    rng: slots.map((slot) => state.rngs[slot]!)
  })
}

/**
 * The actions of the `active` slots: exploration moves (their tokens appended first), then the
 * policy's samples for the other slots. Sampled actions come first, in `active` order, then the
 * moves.
 */
const chooseActions = (state: RolloutState, active: ReadonlyArray<number>): ChosenAction[] => {
  const moves = explorationMoves(state, active)
  const moved = new Set(moves.map((move) => move.slot))
  const sampled = moves.length === 0 ? active : active.filter((slot) => !moved.has(slot))
  if (moves.length > 0)
    appendNow(
      state.generator.session,
      state.tally,
      moves.map((move) => [move.slot, move.tokens])
    )
  const generations = sampled.length === 0 ? [] : generate(state, sampled)
  return [
    ...sampled.map((slot, i) => sampledChoice(state, slot, state.open.get(slot)!, generations[i]!)),
    ...moves.map((move) => exploredChoice(state.layout, move, state.open.get(move.slot)!))
  ]
}

/**
 * Why an episode ends after its latest step, or undefined when it goes on (its next observation
 * then enters its context).
 */
const endingAfter = (state: RolloutState, episode: OpenEpisode, result: Env.StepResult, slotBudgetUsed: boolean): Ending | undefined => {
  if (result.done) return 'done'
  if (episode.turns.length >= state.options.maxTurns) return 'turnLimit'
  if (slotBudgetUsed) return 'slotBudget'
  return state.layout.continueEpisode(episode, result.observation) ? undefined : 'contextLimit'
}

/**
 * Records a step's turn in its episode; when the episode ends, finishes it and, under fixed-turn
 * batching with turns left in the slot's budget, starts the slot's next episode.
 */
const settle = async (state: RolloutState, chosen: ChosenAction, result: Env.StepResult): Promise<void> => {
  const { slot, episode } = chosen
  const { turnsPerSlot } = state.options
  const turn = turnOf(chosen, result)
  episode.turns.push(turn)
  episode.rewards.push(result.reward)
  episode.admissible = result.info.admissibleActions
  state.slotTurns[slot] = state.slotTurns[slot]! + 1
  const slotBudgetUsed = turnsPerSlot !== undefined && state.slotTurns[slot]! >= turnsPerSlot
  state.layout.recordStep(episode, turn, result, chosen.action)
  const ending = endingAfter(state, episode, result, slotBudgetUsed)
  if (ending === undefined) return
  finishEpisode(state, episode, ending === 'done' && result.won, ending)
  state.open.delete(slot)
  if (turnsPerSlot === undefined || slotBudgetUsed) return
  const next = await beginEpisode(state, slot, episode.index + 1)
  if (next !== undefined) state.open.set(slot, next)
}

/** Plays one turn of every open episode; the first environment failure is kept in `state.failed`. */
export const playRound = async (state: RolloutState): Promise<void> => {
  startTurns(state)
  state.queue.flush()
  const active = [...state.open.keys()]
  if (active.length === 0) return
  const chosen = chooseActions(state, active)
  const stepped = await Promise.all(chosen.map(({ episode, action }) => episode.env.step(action)()))
  const failure = stepped.find(E.isLeft)
  if (failure !== undefined) {
    state.failed = failure.left
    return
  }
  const results = stepped.map((r) => (r as E.Right<Env.StepResult>).right)
  for (const [i, chosenAction] of chosen.entries()) await settle(state, chosenAction, results[i]!)
}
