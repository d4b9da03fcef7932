/**
 * Checkpoint and resume of an RL run, through the policy's `Checkpoint` (safetensors weights,
 * JSON metadata, atomic directory write). A checkpoint holds everything the next iteration
 * reads: policy and critic weights, both optimizers' moments and step counts, the KL coefficient,
 * the iteration count, the states of the random streams (tasks, sampling, shuffling; core
 * `Rng.state()`) and the queue of lost games to replay. A resumed run therefore continues the very same streams and, on the same
 * backend, reproduces the metrics of an uninterrupted run.
 *
 * Each checkpoint is its own directory `iter-<n>` under the run's checkpoint directory, written
 * atomically (temp directory + rename), so a run killed at any moment (even by SIGKILL) leaves
 * only complete checkpoints and {@link latest} finds the newest one.
 *
 * @since 0.1.0
 */
import { Decode, Rng } from '@mtrl/core'
import { Checkpoint, type Policy } from '@mtrl/policy'
import { Optimizer } from '@mtrl/optim'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import * as t from 'io-ts'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { KlController } from './KlController.js'
import * as Replay from './Replay.js'
import type { Trainer } from './Trainer.js'

/** Policy's `Checkpoint.StateError`: storage failed, or the checkpoint does not fit this run. @category models @since 0.1.0 */
export type CheckpointError = Checkpoint.StateError

/** @category destructors @since 0.1.0 */
export const message: (error: CheckpointError) => string = Checkpoint.stateMessage

/**
 * The trainer's part of the checkpoint metadata (`extra` of the policy checkpoint).
 *
 * @category codecs
 * @since 0.1.0
 */
export const TrainerState = t.intersection([
  t.type({
    format: t.literal('mtrl-rl-trainer'),
    version: t.literal(1),
    iteration: t.number,
    kl: KlController,
    rng: t.type({ tasks: Rng.RngState, sampling: Rng.RngState, shuffle: Rng.RngState }),
    optimizerSteps: t.type({ policy: t.number, critic: t.union([t.number, t.null]) })
  }),
  /** The replay queue (absent in checkpoints written before replay existed: empty). */
  t.partial({ replay: t.array(Replay.Entry) })
])
/** @category models @since 0.1.0 */
export type TrainerState = t.TypeOf<typeof TrainerState>

/**
 * The directory name of iteration `n`'s checkpoint.
 *
 * @category destructors
 * @since 0.1.0
 */
export const dirName = (iteration: number): string => `iter-${String(iteration).padStart(8, '0')}`

const momentsOf = (prefix: string, optimizer: Optimizer.Optimizer | undefined): Array<[string, Policy.HostTensor]> => {
  if (optimizer === undefined) return []
  const state = Optimizer.state(optimizer)
  return optimizer.variables.flatMap((v, i): Array<[string, Policy.HostTensor]> => [
    [`${prefix}/${i}/m`, { shape: v.shape, data: state.m[i]! }],
    [`${prefix}/${i}/v`, { shape: v.shape, data: state.v[i]! }]
  ])
}

/**
 * Saves the trainer's state as `dir/iter-<iteration>` atomically; returns that directory.
 *
 * @category constructors
 * @since 0.1.0
 */
export const save =
  (dir: string) =>
  (trainer: Trainer): TE.TaskEither<CheckpointError, string> =>
  async () => {
    const target = join(dir, dirName(trainer.state.iteration))
    const extra: TrainerState = {
      format: 'mtrl-rl-trainer',
      version: 1,
      iteration: trainer.state.iteration,
      kl: trainer.state.kl,
      rng: { tasks: trainer.state.tasks.state(), sampling: trainer.state.sampling.state(), shuffle: trainer.state.shuffle.state() },
      ...(trainer.state.replay.length === 0 ? {} : { replay: [...trainer.state.replay] }),
      optimizerSteps: { policy: trainer.policyOptimizer.steps(), critic: trainer.criticOptimizer?.steps() ?? null }
    }
    const moments = new Map([...momentsOf('policyOptimizer', trainer.policyOptimizer), ...momentsOf('criticOptimizer', trainer.criticOptimizer)])
    const saved = await Checkpoint.save(target, {
      policy: trainer.setup.policy,
      ...(trainer.setup.critic === undefined ? {} : { critic: trainer.setup.critic }),
      optimizerState: { step: trainer.policyOptimizer.steps(), moments },
      extra
    })()
    return E.isLeft(saved) ? E.left({ _tag: 'Storage', error: saved.left }) : E.right(target)
  }

/**
 * The newest checkpoint under `dir` (none when `dir` is missing or holds none). Directories
 * appear only complete (atomic rename), so the newest is always loadable.
 *
 * @category destructors
 * @since 0.1.0
 */
export const latest = async (dir: string): Promise<O.Option<string>> => {
  const names = await readdir(dir).catch(() => [] as string[])
  const complete = names.filter((n) => /^iter-\d{8}$/.test(n)).sort()
  const last = complete[complete.length - 1]
  return last === undefined ? O.none : O.some(join(dir, last))
}

const copyInto = (target: Policy.NamedVariables, source: Policy.NamedVariables, what: string): string | undefined => {
  const names = Object.keys(target)
  if (names.length !== Object.keys(source).length) return `${what}: ${Object.keys(source).length} tensors saved, ${names.length} expected`
  for (const name of names) {
    const from = source[name]
    const to = target[name]!
    if (from === undefined) return `${what}: no tensor ${name}`
    if (from.shape.join(',') !== to.shape.join(',')) return `${what}: ${name} is [${from.shape}], expected [${to.shape}]`
  }
  for (const name of names) target[name]!.assign(source[name]!)
  return undefined
}

/**
 * Restores a checkpoint into a trainer built from the same setup (same config, same model
 * shapes): weights, optimizer moments, iteration, KL coefficient, RNG streams. Rollouts the
 * trainer started ahead (`maxStaleness`) are waited for and dropped first: they played other weights.
 *
 * @category combinators
 * @since 0.1.0
 */
export const restore =
  (checkpoint: string) =>
  (trainer: Trainer): TE.TaskEither<CheckpointError, Trainer> =>
  async () => {
    await Promise.allSettled(trainer.ahead.splice(0))
    const loaded = await Checkpoint.load(checkpoint)()
    if (E.isLeft(loaded)) return E.left({ _tag: 'Storage', error: loaded.left })
    const { policy, critic, optimizerState, extra } = loaded.right
    const mismatch = (reason: string): E.Either<CheckpointError, Trainer> => E.left({ _tag: 'Mismatch', dir: checkpoint, reason })
    try {
      const state = Decode.decode(`${checkpoint} extra`, TrainerState)(extra)
      if (E.isLeft(state)) return mismatch(Decode.formatError(state.left))
      if ((critic === undefined) !== (trainer.setup.critic === undefined)) return mismatch('critic presence differs')
      const weights =
        copyInto(trainer.setup.policy.variables, policy.variables, 'policy') ??
        (critic !== undefined && trainer.setup.critic !== undefined ? copyInto(trainer.setup.critic.variables, critic.variables, 'critic') : undefined)
      if (weights !== undefined) return mismatch(weights)
      const optimizer = (prefix: string, o: Optimizer.Optimizer, steps: number): string | undefined => {
        const pick = (i: number, which: 'm' | 'v'): Float32Array | undefined => optimizerState?.moments.get(`${prefix}/${i}/${which}`)?.data
        const m = o.variables.map((_, i) => pick(i, 'm'))
        const v = o.variables.map((_, i) => pick(i, 'v'))
        if (m.some((x) => x === undefined) || v.some((x) => x === undefined)) return `${prefix}: moments missing`
        Optimizer.restore(o, { steps, m: m as Float32Array[], v: v as Float32Array[] })
        return undefined
      }
      const s = state.right
      const moments =
        optimizer('policyOptimizer', trainer.policyOptimizer, s.optimizerSteps.policy) ??
        (trainer.criticOptimizer === undefined ? undefined : optimizer('criticOptimizer', trainer.criticOptimizer, s.optimizerSteps.critic ?? 0))
      if (moments !== undefined) return mismatch(moments)
      trainer.state.iteration = s.iteration
      trainer.state.kl = s.kl
      trainer.state.tasks = Rng.fromState(s.rng.tasks)
      trainer.state.sampling = Rng.fromState(s.rng.sampling)
      trainer.state.shuffle = Rng.fromState(s.rng.shuffle)
      trainer.state.replay = s.replay ?? []
      return E.right(trainer)
    } finally {
      critic?.dispose()
      policy.dispose()
    }
  }

/**
 * Saves when the trainer's iteration count is a positive multiple of `config.checkpointEvery`
 * (call it after each `Trainer.iterate`); returns the directory written, if any.
 *
 * @category combinators
 * @since 0.1.0
 */
export const saveIfDue =
  (dir: string) =>
  (trainer: Trainer): TE.TaskEither<CheckpointError, O.Option<string>> =>
  async () => {
    const every = trainer.setup.config.checkpointEvery
    if (every <= 0 || trainer.state.iteration === 0 || trainer.state.iteration % every !== 0) return E.right(O.none)
    const saved = await save(dir)(trainer)()
    return E.isLeft(saved) ? saved : E.right(O.some(saved.right))
  }

/**
 * Restores the newest checkpoint under `dir`, if there is one; returns the iteration the run
 * continues from (the trainer's own, 0, for a fresh run).
 *
 * @category combinators
 * @since 0.1.0
 */
export const resume =
  (dir: string) =>
  (trainer: Trainer): TE.TaskEither<CheckpointError, number> =>
  async () => {
    const found = await latest(dir)
    if (O.isNone(found)) return E.right(trainer.state.iteration)
    const restored = await restore(found.value)(trainer)()
    return E.isLeft(restored) ? restored : E.right(trainer.state.iteration)
  }
