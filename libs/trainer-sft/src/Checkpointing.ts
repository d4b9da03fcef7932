/**
 * An SFT run's mid-run checkpoint, through the policy's `Checkpoint`: the policy (weights and
 * tokenizer) with the trainer's {@link Sft.Snapshot} (Adam's moments and the weight average as
 * an optimizer state named `sft`; the step count and the metrics as JSON), written atomically
 * into one directory. {@link load} gives back what `Sft.trainAsync` continues from
 * (`checkpoints.from`), so a stopped or killed SFT stage resumes instead of starting over.
 *
 * @since 0.1.0
 */
import { Checkpoint, PolicyError, type Policy } from '@mtrl/policy'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type * as Sft from './Sft.js'

/** Policy's `Checkpoint.StateError`: storage failed, or the folder holds no SFT snapshot. @category models @since 0.1.0 */
export type CheckpointError = Checkpoint.StateError

/** @category destructors @since 0.1.0 */
export const message: (error: CheckpointError) => string = Checkpoint.stateMessage

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

/**
 * Writes `policy` and `snapshot` into `dir`, atomically (a crash leaves the previous one).
 *
 * @category constructors
 * @since 0.1.0
 */
export const save =
  (dir: string) =>
  (policy: Policy.Policy, snapshot: Sft.Snapshot): TE.TaskEither<CheckpointError, void> =>
  async () => {
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
    const saved = await Checkpoint.save(dir, { policy, optimizerStates: { sft: { step: snapshot.optimizer.steps, moments } }, extra })()
    return E.mapLeft((error: PolicyError.PolicyError): CheckpointError => ({ _tag: 'Storage', error }))(saved)
  }

/**
 * The policy and snapshot saved in `dir`, or none when `dir` holds no checkpoint. The caller
 * owns the policy.
 *
 * @category constructors
 * @since 0.1.0
 */
export const load =
  (dir: string): TE.TaskEither<CheckpointError, O.Option<{ readonly policy: Policy.Policy; readonly snapshot: Sft.Snapshot }>> =>
  async () => {
    if (!(await Checkpoint.isCheckpoint(dir))) return E.right(O.none)
    const loaded = await Checkpoint.load(dir)()
    if (E.isLeft(loaded)) return E.left({ _tag: 'Storage', error: loaded.left })
    const { policy, optimizerStates, extra } = loaded.right
    const saved = extra as Saved | null
    const state = optimizerStates?.['sft']
    const mismatch = (reason: string): E.Either<CheckpointError, never> => {
      policy.dispose()
      return E.left({ _tag: 'Mismatch', dir, reason })
    }
    if (saved?.kind !== 'sft-snapshot' || state === undefined) return mismatch('not an SFT snapshot of mtrl (no snapshot or optimizer state)')
    const missing = (['m', 'v', ...(saved.average ? ['average' as const] : [])] as const).flatMap((name) =>
      Array.from({ length: saved.variables }, (_, i) => key(name, i)).filter((k) => !state.moments.has(k))
    )
    if (missing.length > 0) return mismatch(`the snapshot lacks ${missing[0]}`)
    const part = (name: 'm' | 'v' | 'average'): Float32Array[] =>
      Array.from({ length: saved.variables }, (_, i) => {
        const host = state.moments.get(key(name, i))!
        return host.data instanceof Float32Array ? host.data : Float32Array.from(host.data)
      })
    const snapshot: Sft.Snapshot = {
      optimizer: { steps: saved.adamSteps, m: part('m'), v: part('v') },
      average: saved.average ? part('average') : undefined,
      initialHeldOut: orNaN(saved.initialHeldOut),
      steps: metricsIn(saved.steps),
      epochs: metricsIn(saved.epochs)
    }
    return E.right(O.some({ policy, snapshot }))
  }
