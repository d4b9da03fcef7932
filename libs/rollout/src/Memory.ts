/**
 * What the policy sees of an episode's past (its context policy).
 *
 * - `full`: the whole episode is one growing sequence (prompt, action, observation, action,
 *   ...); one training sample per episode; the KV cache is kept across turns.
 * - `window(K)`: each turn re-renders a fresh prompt holding the goal, the last K turns
 *   (observation and action as text) and the current observation; each turn is then its own
 *   training sample with its own prompt (as Verlog does), and turn-level estimators link the
 *   samples of one episode (`Episode.samples` are in turn order).
 *
 * @since 0.1.0
 */
import * as t from 'io-ts'

/**
 * @category codecs
 * @since 0.1.0
 */
export const Memory = t.union([t.type({ _tag: t.literal('full') }), t.type({ _tag: t.literal('window'), turns: t.number })])
/** @category models @since 0.1.0 */
export type Memory = t.TypeOf<typeof Memory>

/** @category constructors @since 0.1.0 */
export const full: Memory = { _tag: 'full' }

/**
 * The goal plus the last `turns` turns.
 *
 * @category constructors
 * @since 0.1.0
 */
export const window = (turns: number): Memory => {
  if (!Number.isInteger(turns) || turns < 0) throw new RangeError(`Memory.window: turns must be a non-negative integer, got ${turns}`)
  return { _tag: 'window', turns }
}

/**
 * One past turn as the window renders it.
 *
 * @category models
 * @since 0.1.0
 */
export interface PastTurn {
  readonly observation: string
  readonly action: string
}

/**
 * The first user message of a windowed turn: goal, the last K turns, the current observation.
 *
 * @category destructors
 * @since 0.1.0
 */
export const renderWindow = (goal: string, past: ReadonlyArray<PastTurn>, current: string, k: number): string => {
  const kept = k === 0 ? [] : past.slice(-k)
  const lines = [goal]
  for (const turn of kept) lines.push(`Observation: ${turn.observation}`, `Action: ${turn.action}`)
  lines.push(`Observation: ${current}`)
  return lines.join('\n')
}
