/**
 * Checkpoint and resume of an RL run. A checkpoint holds everything the next iteration reads:
 * policy and critic weights, both optimizers' moments and step counts, the KL coefficient, the
 * iteration count and the states of the random streams (tasks, sampling, shuffling; core
 * `Rng.state()`). A resumed run therefore continues the very same streams and, on the same
 * backend, reproduces the metrics of an uninterrupted run.
 *
 * Saving is atomic: everything is written into a temporary directory that is then renamed to
 * `iter-<n>` (a rename within one file system is atomic), so a run killed at any moment (even by
 * SIGKILL) leaves only complete checkpoints, and {@link latest} finds the newest one.
 *
 * Layout of `iter-<n>/`: `state.json` (iteration, KL controller, RNG states, tensor index) and
 * `tensors.bin` (float32 little-endian, concatenated in index order).
 *
 * @since 0.1.0
 */
import { Decode, Rng } from '@mtrl/core'
import { Optimizer } from '@mtrl/trainer-sft'
import * as tf from '@tensorflow/tfjs'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import * as t from 'io-ts'
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { KlController } from './KlController.js'
import type { Trainer } from './Trainer.js'

/**
 * @category models
 * @since 0.1.0
 */
export type CheckpointError =
  | { readonly _tag: 'WriteFailed'; readonly dir: string; readonly reason: string }
  | { readonly _tag: 'ReadFailed'; readonly dir: string; readonly reason: string }
  | { readonly _tag: 'Mismatch'; readonly dir: string; readonly reason: string }

/** @category destructors @since 0.1.0 */
export const message = (error: CheckpointError): string => {
  switch (error._tag) {
    case 'WriteFailed':
      return `could not write checkpoint ${error.dir}: ${error.reason}`
    case 'ReadFailed':
      return `could not read checkpoint ${error.dir}: ${error.reason}`
    case 'Mismatch':
      return `checkpoint ${error.dir} does not fit this run: ${error.reason}`
  }
}

const Entry = t.type({ name: t.string, shape: t.array(t.number) })

/**
 * `state.json`.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Saved = t.type({
  format: t.literal('mtrl-rl-checkpoint'),
  version: t.literal(1),
  iteration: t.number,
  kl: KlController,
  rng: t.type({ tasks: Rng.RngState, sampling: Rng.RngState, shuffle: Rng.RngState }),
  optimizerSteps: t.type({ policy: t.number, critic: t.union([t.number, t.null]) }),
  tensors: t.array(Entry)
})
/** @category models @since 0.1.0 */
export type Saved = t.TypeOf<typeof Saved>

const reason = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/**
 * The directory name of iteration `n`'s checkpoint.
 *
 * @category destructors
 * @since 0.1.0
 */
export const dirName = (iteration: number): string => `iter-${String(iteration).padStart(8, '0')}`

interface Named {
  readonly name: string
  readonly shape: ReadonlyArray<number>
  readonly read: () => Float32Array
}

const groups = (trainer: Trainer) => {
  const policyVars = Object.entries(trainer.setup.policy.variables)
  const critic = trainer.setup.critic
  const criticVars = critic === undefined ? [] : Object.entries(critic.variables)
  return { policyVars, criticVars }
}

const named = (trainer: Trainer): ReadonlyArray<Named> => {
  const { policyVars, criticVars } = groups(trainer)
  const vars = (prefix: string, entries: ReadonlyArray<[string, tf.Variable]>): Named[] =>
    entries.map(([name, v]) => ({ name: `${prefix}/${name}`, shape: v.shape, read: () => new Float32Array(v.dataSync()) }))
  const moments = (prefix: string, o: Optimizer.Optimizer | undefined): Named[] => {
    if (o === undefined) return []
    const state = Optimizer.state(o)
    return o.variables.flatMap((v, i) => [
      { name: `${prefix}/m/${i}`, shape: v.shape, read: () => state.m[i]! },
      { name: `${prefix}/v/${i}`, shape: v.shape, read: () => state.v[i]! }
    ])
  }
  return [...vars('policy', policyVars), ...vars('critic', criticVars), ...moments('policyOptimizer', trainer.policyOptimizer), ...moments('criticOptimizer', trainer.criticOptimizer)]
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
    const final = join(dir, dirName(trainer.state.iteration))
    const temp = join(dir, `.tmp-${dirName(trainer.state.iteration)}-${process.pid}-${Date.now()}`)
    try {
      const tensors = named(trainer)
      const parts = tensors.map((x) => x.read())
      const saved: Saved = {
        format: 'mtrl-rl-checkpoint',
        version: 1,
        iteration: trainer.state.iteration,
        kl: trainer.state.kl,
        rng: { tasks: trainer.state.tasks.state(), sampling: trainer.state.sampling.state(), shuffle: trainer.state.shuffle.state() },
        optimizerSteps: { policy: trainer.policyOptimizer.steps(), critic: trainer.criticOptimizer?.steps() ?? null },
        tensors: tensors.map((x) => ({ name: x.name, shape: [...x.shape] }))
      }
      const bytes = Buffer.alloc(parts.reduce((n, p) => n + p.byteLength, 0))
      let at = 0
      for (const p of parts) {
        Buffer.from(p.buffer, p.byteOffset, p.byteLength).copy(bytes, at)
        at += p.byteLength
      }
      await mkdir(temp, { recursive: true })
      await writeFile(join(temp, 'tensors.bin'), bytes)
      await writeFile(join(temp, 'state.json'), JSON.stringify(saved))
      await rm(final, { recursive: true, force: true })
      await rename(temp, final)
      return E.right(final)
    } catch (e) {
      await rm(temp, { recursive: true, force: true }).catch(() => undefined)
      return E.left({ _tag: 'WriteFailed', dir: final, reason: reason(e) })
    }
  }

/**
 * The newest complete checkpoint under `dir` (none when `dir` is missing or empty).
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

/**
 * Restores a checkpoint into a trainer built from the same setup (same config, same model
 * shapes): weights, optimizer moments, iteration, KL coefficient, RNG streams.
 *
 * @category combinators
 * @since 0.1.0
 */
export const restore =
  (checkpoint: string) =>
  (trainer: Trainer): TE.TaskEither<CheckpointError, Trainer> =>
  async () => {
    let saved: Saved
    let bytes: Buffer
    try {
      const decoded = Decode.decode('checkpoint state.json', Saved)(JSON.parse(await readFile(join(checkpoint, 'state.json'), 'utf8')))
      if (E.isLeft(decoded)) return E.left({ _tag: 'ReadFailed', dir: checkpoint, reason: Decode.formatError(decoded.left) })
      saved = decoded.right
      bytes = await readFile(join(checkpoint, 'tensors.bin'))
    } catch (e) {
      return E.left({ _tag: 'ReadFailed', dir: checkpoint, reason: reason(e) })
    }
    const expected = named(trainer)
    if (expected.length !== saved.tensors.length) return E.left({ _tag: 'Mismatch', dir: checkpoint, reason: `${saved.tensors.length} tensors saved, ${expected.length} expected` })
    const data = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))
    const values = new Map<string, Float32Array>()
    let at = 0
    for (const [i, entry] of saved.tensors.entries()) {
      const want = expected[i]!
      if (entry.name !== want.name || entry.shape.join(',') !== want.shape.join(','))
        return E.left({ _tag: 'Mismatch', dir: checkpoint, reason: `tensor ${i} is ${entry.name} [${entry.shape}], expected ${want.name} [${want.shape}]` })
      const size = entry.shape.reduce((a, b) => a * b, 1)
      values.set(entry.name, data.subarray(at, at + size))
      at += size
    }
    const { policyVars, criticVars } = groups(trainer)
    const assign = (prefix: string, entries: ReadonlyArray<[string, tf.Variable]>): void =>
      entries.forEach(([name, v]) => {
        const value = tf.tensor(values.get(`${prefix}/${name}`)!, v.shape)
        v.assign(value)
        value.dispose()
      })
    assign('policy', policyVars)
    assign('critic', criticVars)
    const optimizerState = (prefix: string, o: Optimizer.Optimizer, steps: number): Optimizer.State => ({
      steps,
      m: o.variables.map((_, i) => values.get(`${prefix}/m/${i}`)!),
      v: o.variables.map((_, i) => values.get(`${prefix}/v/${i}`)!)
    })
    Optimizer.restore(trainer.policyOptimizer, optimizerState('policyOptimizer', trainer.policyOptimizer, saved.optimizerSteps.policy))
    if (trainer.criticOptimizer !== undefined)
      Optimizer.restore(trainer.criticOptimizer, optimizerState('criticOptimizer', trainer.criticOptimizer, saved.optimizerSteps.critic ?? 0))
    trainer.state.iteration = saved.iteration
    trainer.state.kl = saved.kl
    trainer.state.tasks = Rng.fromState(saved.rng.tasks)
    trainer.state.sampling = Rng.fromState(saved.rng.sampling)
    trainer.state.shuffle = Rng.fromState(saved.rng.shuffle)
    return E.right(trainer)
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
 * continues from (0 for a fresh run).
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
