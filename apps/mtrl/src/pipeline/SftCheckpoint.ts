/**
 * An SFT stage's mid-stage checkpoint: the policy (weights and tokenizer) with the trainer's
 * snapshot (Adam's moments and the weight average as an optimizer state named `sft`, the step
 * and metrics as JSON), written atomically into one folder. `mtrl resume` continues the stage
 * from it instead of starting the stage over.
 */
import { Checkpoint, ChatTemplate, PolicyError } from '@mtrl/policy'
import type { Sft } from '@mtrl/trainer-sft'
import * as E from 'fp-ts/lib/Either.js'
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import * as Agent from './Agent.js'

/** The folder of stage `stageDir`'s mid-stage checkpoint. */
export const dirOf = (stageDir: string): string => join(stageDir, 'sft-latest')

interface Saved {
  readonly kind: 'sft-snapshot'
  readonly adamSteps: number
  readonly variables: number
  readonly average: boolean
  readonly initialHeldOut: number | null
  readonly steps: ReadonlyArray<Sft.StepMetrics>
  readonly epochs: ReadonlyArray<Sft.EpochMetrics>
}

const key = (part: 'm' | 'v' | 'average', i: number): string => `${part}.${String(i).padStart(4, '0')}`

/** JSON has no NaN: NaN metrics (no context loss, no held-out split) are written as null. */
const finite = (x: number): number | null => (Number.isNaN(x) ? null : x)
const orNaN = (x: number | null): number => (x === null ? Number.NaN : x)
const metricsOut = <A extends object>(rows: ReadonlyArray<A>): ReadonlyArray<A> =>
  rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'number' ? finite(v) : v])) as A)
const metricsIn = <A extends object>(rows: ReadonlyArray<A>): A[] =>
  rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null ? Number.NaN : v])) as A)

/** Writes the agent's policy and `snapshot` into `dir` (atomically: a crash leaves the previous one). */
export const save = async (dir: string, agent: Agent.Agent, snapshot: Sft.Snapshot): Promise<void> => {
  const moments = new Map<string, { shape: number[]; data: Float32Array }>()
  snapshot.optimizer.m.forEach((data, i) => moments.set(key('m', i), { shape: [data.length], data }))
  snapshot.optimizer.v.forEach((data, i) => moments.set(key('v', i), { shape: [data.length], data }))
  snapshot.average?.forEach((data, i) => moments.set(key('average', i), { shape: [data.length], data }))
  const extra: Saved = {
    kind: 'sft-snapshot',
    adamSteps: snapshot.optimizer.steps,
    variables: snapshot.optimizer.m.length,
    average: snapshot.average !== undefined,
    initialHeldOut: finite(snapshot.initialHeldOut),
    steps: metricsOut(snapshot.steps),
    epochs: metricsOut(snapshot.epochs)
  }
  const saved = await Checkpoint.save(dir, { policy: agent.policy, optimizerStates: { sft: { step: snapshot.optimizer.steps, moments } }, extra })()
  if (E.isLeft(saved)) throw new Error(PolicyError.message(saved.left))
}

/** The agent and snapshot saved in `dir`, or undefined when there is none. */
export const load = async (dir: string): Promise<{ readonly agent: Agent.Agent; readonly snapshot: Sft.Snapshot } | undefined> => {
  if (!existsSync(join(dir, 'config.json'))) return undefined
  const loaded = await Checkpoint.load(dir)()
  if (E.isLeft(loaded)) throw new Error(PolicyError.message(loaded.left))
  const { policy, optimizerStates, extra } = loaded.right
  const saved = extra as Saved | null
  const state = optimizerStates?.['sft']
  if (saved?.kind !== 'sft-snapshot' || state === undefined || policy.tokenizer === undefined) {
    policy.dispose()
    throw new Error(`${dir}: not an SFT checkpoint of mtrl (no snapshot, optimizer state or tokenizer)`)
  }
  const part = (name: 'm' | 'v' | 'average'): Float32Array[] =>
    Array.from({ length: saved.variables }, (_, i) => {
      const host = state.moments.get(key(name, i))
      if (host === undefined) throw new Error(`${dir}: the SFT snapshot lacks ${key(name, i)}`)
      return host.data instanceof Float32Array ? host.data : Float32Array.from(host.data)
    })
  const snapshot: Sft.Snapshot = {
    optimizer: { steps: saved.adamSteps, m: part('m'), v: part('v') },
    average: saved.average ? part('average') : undefined,
    initialHeldOut: orNaN(saved.initialHeldOut),
    steps: metricsIn(saved.steps),
    epochs: metricsIn(saved.epochs)
  }
  return { agent: Agent.fromParts(policy, undefined, policy.tokenizer, ChatTemplate.make(policy.tokenizer), policy.config.maxLen), snapshot }
}

/** Removes the mid-stage checkpoint once the stage's end is saved. */
export const remove = (dir: string): void => rmSync(dir, { recursive: true, force: true })
