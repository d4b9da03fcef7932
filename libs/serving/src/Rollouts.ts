/**
 * Agent runs as routes of a server: each run of an agent gets its own base URL
 * (`/rollouts/<id>/v1`), so that every model call it makes, from this process or any other, in
 * any language, is recorded as that run's ({@link Capture.Call}), and the run posts its reward to
 * `/rollouts/<id>/reward` (`{"reward": 1}`, or per-turn `{"rewards": [0, 0.5, 1]}`). A trainer
 * opens a run, hands its URL to the agent, and reads the calls and the reward when it is done.
 *
 * @since 0.1.0
 */
import { randomBytes } from 'node:crypto'
import * as t from 'io-ts'
import type * as Capture from './Capture.js'

/**
 * A reward as an agent posts it: one number for the episode, or one per turn.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Reward = t.union([t.type({ reward: t.number }), t.type({ rewards: t.readonlyArray(t.number) })])
/** @category models @since 0.1.0 */
export type Reward = t.TypeOf<typeof Reward>

/**
 * One agent run: its id, its base URL path (`/rollouts/<id>/v1`), its calls so far, and its
 * reward once posted (`rewarded` resolves then).
 *
 * @category models
 * @since 0.1.0
 */
export interface Rollout {
  readonly id: string
  readonly path: string
  readonly calls: () => ReadonlyArray<Capture.Call>
  readonly reward: () => Reward | undefined
  readonly rewarded: Promise<Reward>
}

/**
 * The open runs of a server.
 *
 * @category models
 * @since 0.1.0
 */
export interface Rollouts {
  /** Opens a run (a fresh random id unless given). */
  readonly open: (id?: string) => Rollout
  readonly get: (id: string) => Rollout | undefined
  /** Forgets a run (its routes answer 404 from then on). */
  readonly close: (id: string) => void
  /** Records a call of run `id`; false when there is no such run. */
  readonly record: (id: string, call: Capture.Call) => boolean
  /** Sets run `id`'s reward; false when there is no such run. */
  readonly reward: (id: string, reward: Reward) => boolean
}

interface Entry {
  readonly rollout: Rollout
  readonly calls: Capture.Call[]
  reward: Reward | undefined
  readonly resolve: (reward: Reward) => void
}

/**
 * An empty set of runs.
 *
 * @example
 * import { Rollouts, Server } from '@mtrl/serving'
 * declare const model: import('@mtrl/serving').Completions.Model
 * const rollouts = Rollouts.make()
 * const server = await Server.start({ model, rollouts })()
 * const run = rollouts.open() // the agent's base URL: `${url}${run.path}`
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (): Rollouts => {
  const runs = new Map<string, Entry>()
  return {
    open: (given) => {
      const id = given ?? randomBytes(8).toString('hex')
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) throw new Error(`Rollouts.open: an id is 1 to 64 letters, digits, _ or -; got ${JSON.stringify(id)}`)
      if (runs.has(id)) throw new Error(`Rollouts.open: run ${id} is open already`)
      const calls: Capture.Call[] = []
      let resolve: (reward: Reward) => void = () => undefined
      const rewarded = new Promise<Reward>((done) => (resolve = done))
      const entry: Entry = {
        calls,
        reward: undefined,
        resolve,
        rollout: { id, path: `/rollouts/${id}/v1`, calls: () => calls.slice(), reward: () => entry.reward, rewarded }
      }
      runs.set(id, entry)
      return entry.rollout
    },
    get: (id) => runs.get(id)?.rollout,
    close: (id) => void runs.delete(id),
    record: (id, call) => {
      const entry = runs.get(id)
      entry?.calls.push(call)
      return entry !== undefined
    },
    reward: (id, reward) => {
      const entry = runs.get(id)
      if (entry === undefined) return false
      entry.reward = reward
      entry.resolve(reward)
      return true
    }
  }
}
