/**
 * Rollouts on every core of one machine: an RL iteration's groups split between the calling
 * thread and worker threads, each with its own copy of the policy on its own TensorFlow.js
 * backend, its own sampler session (KV cache) and environments, as `@mtrl/replicas` splits the
 * update. The calling thread plays its share with the trainer's own session and environments
 * while the threads play theirs; the results are merged in slot order with the metrics of the
 * whole rollout.
 *
 * The episodes are those a one-thread `Rollout.run` plays for the same seeds, token for token
 * (tested): every slot samples from its own stream (`Rollout.Streams`: the iteration's key and
 * the slot's index), and on the cpu and wasm backends a slot's logits do not depend on which
 * other slots share its batch. The threads must use the caller's backend (`init`).
 *
 * What it is for: the wasm backend computes on one thread under Node, so sampling uses one core
 * unless the slots are split over threads. Weights go to a thread only when they changed since
 * its last share (an optimizer step, a restored checkpoint).
 *
 * @since 0.2.0
 */
import { EnvError, type Env } from '@mtrl/core'
import { Policy } from '@mtrl/policy'
import { Rollout, type Generator } from '@mtrl/rollout'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { Collected } from './internal/collect.js'
import * as Jobs from './internal/jobs.js'
import { merge } from './internal/merge.js'
import { playSlice, resultOf, type Slice } from './internal/slice.js'
import { spawn, type Handle } from './internal/threadHandle.js'
import type { ModuleRef, Response, Weights } from './internal/threadProtocol.js'
import * as PolicyStore from './PolicyStore.js'
import * as QueueError from './QueueError.js'
import type { Result } from './Runner.js'

/**
 * A module a thread imports first, its default export called with `data` (`@mtrl/replicas`'
 * `Pool.Init`; the app's `ThreadInit.init(backend)`).
 *
 * @category models
 * @since 0.2.0
 */
export type Init = ModuleRef

/**
 * - `threads`: threads that play, the calling one included (1: it plays alone), unless
 *   `callerPlays` is false: then `threads` worker threads play every share while the calling
 *   thread is free for other work, e.g. the update of a trainer that plays ahead
 *   (`maxStaleness` of `@mtrl/trainer-rl`);
 * - `policy`: read as it is at each call (its model record, `PolicyStore.recordOf`, is sent once);
 * - `rollout`, `contextLength`: as the caller's `Rollout.run` and sampler session;
 * - `env`: the environment spec the threads build (JSON, e.g. a recipe's env entry), with
 *   `envs`: the URL of a module whose default export decodes it,
 *   `(spec: unknown) => Either<string, Env.EnvSource>` (what `Worker.cachedSources` takes);
 * - `init`: a module each thread imports first, its default export called with `data`: where the
 *   app activates its backend (`@mtrl/backend`'s `ThreadInit.init(name)`); without it a thread
 *   runs on TensorFlow.js's default (`cpu` under Node).
 *
 * @category models
 * @since 0.2.0
 */
export interface Options {
  readonly threads: number
  readonly policy: Policy.Policy
  readonly rollout: Rollout.Options
  readonly contextLength: number
  readonly env: unknown
  readonly envs: string
  readonly init?: Init
  /** Whether the calling thread plays a share (default true). */
  readonly callerPlays?: boolean
}

/**
 * A thread that could not start: which one and why.
 *
 * @category models
 * @since 0.2.0
 */
export interface StartError {
  readonly _tag: 'ThreadFailed'
  readonly thread: number
  readonly reason: string
}

/**
 * @category destructors
 * @since 0.2.0
 */
export const message = (error: StartError): string => `rollout thread ${error.thread} did not start: ${error.reason}`

/**
 * Worker threads that play their share of each call. `play` is a trainer's `Setup.play`: the
 * caller's share runs on `generator` (the trainer's session) and the first environments of
 * `input.envs`; a thread that failed or exited fails the call (and every later one) with a
 * `Transport` error that says so. `dispose` has the threads close their environments, then stops them.
 *
 * @category models
 * @since 0.2.0
 */
export interface Pool {
  readonly _tag: 'RolloutThreads'
  /** Worker threads (the calling thread plays too unless `callerPlays` is false). */
  readonly size: number
  /** The TensorFlow.js backend each worker thread samples on. */
  readonly backends: ReadonlyArray<string>
  readonly play: (input: Rollout.Input, generator: Generator.Generator) => TE.TaskEither<EnvError.EnvError, Result>
  /** How many times weights were sent to a thread so far (once per thread per version of the weights used). */
  readonly weightsSent: () => number
  /** Worker threads not yet exited. */
  readonly alive: () => number
  readonly dispose: () => Promise<void>
}

/** The version of the policy's weights: it grows whenever a variable has been assigned since the last call. */
const versions = (policy: Policy.Policy): (() => number) => {
  let seen: ReadonlyArray<object> = []
  let version = 0
  return () => {
    const ids = Object.values(policy.variables).map((v) => v.dataId)
    if (!(seen.length === ids.length && seen.every((id, i) => id === ids[i]))) {
      version += 1
      seen = ids
    }
    return version
  }
}

/** What a call's share of thread `handle` came back as: its result, or the error that ends the call. */
const received = (handle: Handle, answer: Response | string, env: string): E.Either<EnvError.EnvError, Collected> => {
  const fail = (reason: string): E.Either<EnvError.EnvError, never> => E.left(EnvError.transport(env, `rollout thread ${handle.index}`, reason))
  if (typeof answer === 'string') return fail(`${answer}; the rollout threads cannot go on: stop them and start new ones`)
  switch (answer._tag) {
    case 'Played':
      return E.right({ id: `thread-${handle.index}`, attempts: 1, result: answer.result })
    case 'EnvFailed':
      return E.left(answer.error)
    case 'Failed':
      handle.sent = 0 // the weights may not have been assigned: send them again
      return fail(answer.message)
    case 'Ready':
    case 'Closed':
      return fail(`answered ${answer._tag} to a slice`)
  }
}

/** The calling thread's share, played on the caller's generator and the first environments of the input. */
const playMine = async (
  slice: Slice | undefined,
  generator: Generator.Generator,
  envs: ReadonlyArray<Env.Env>
): Promise<E.Either<EnvError.EnvError, Collected[]>> => {
  if (slice === undefined) return E.right([])
  const played = await playSlice(slice, generator, envs.slice(0, slice.seeds.length * slice.groupSize))
  return E.isLeft(played) ? played : E.right([{ id: 'main', attempts: 1, result: resultOf(slice, played.right, 'main') }])
}

/**
 * `Pool.play`: cuts the groups in even shares (the caller's first, unless it does not play),
 * sends the threads theirs (with the weights as they are at the call, when they changed since a
 * thread's last share), plays its own, merges. Everything is sent before the first `await`.
 */
const play =
  (options: Options, handles: ReadonlyArray<Handle>, version: () => number, onSend: () => void) =>
  (input: Rollout.Input, generator: Generator.Generator): TE.TaskEither<EnvError.EnvError, Result> =>
  async () => {
    const { seeds, groupSize } = input
    if (input.envs.length !== seeds.length * groupSize)
      throw new Error(`Threads.play: ${input.envs.length} envs for ${seeds.length} seeds x groupSize ${groupSize}`)
    const started = performance.now()
    const env = input.envs[0]?.spec.name ?? 'environment'
    const streams = Rollout.streamsOf(input)
    const callerPlays = options.callerPlays ?? true
    const parts = Jobs.parts(seeds, groupSize, streams.firstSlot, Jobs.even(seeds.length, handles.length + (callerPlays ? 1 : 0)))
    const slices = parts.map((part): Slice => ({ rollout: options.rollout, contextLength: options.contextLength, groupSize, ...part, key: streams.key }))
    const now = version()
    let host: Weights | undefined
    const asked = slices.slice(callerPlays ? 1 : 0).map(async (slice, k) => {
      const handle = handles[k]!
      const weights = handle.sent === now ? undefined : (host ??= [...Policy.toHost(options.policy.variables)])
      if (weights !== undefined) onSend()
      handle.sent = now
      return received(handle, await handle.ask({ _tag: 'Play', slice, weights }), env)
    })
    // a throw here (a programmer error) still waits for the threads, so none is left with a share in hand
    const mine = await playMine(callerPlays ? slices[0] : undefined, generator, input.envs).catch(async (e: unknown) => {
      await Promise.all(asked)
      throw e
    })
    const theirs = await Promise.all(asked)
    const failed = [...theirs, mine].find(E.isLeft)
    if (failed !== undefined) return failed
    const collected = [...(E.isRight(mine) ? mine.right : []), ...theirs.flatMap((r) => (E.isRight(r) ? [r.right] : []))]
    const merged = merge(collected, { firstSlot: streams.firstSlot, slots: seeds.length * groupSize }, started)
    return E.isLeft(merged) ? E.left(EnvError.transport(env, 'rollout threads', QueueError.message(merged.left))) : merged
  }

/** Waits for each thread's first message: `Ready` (with its backend), or why it did not start. */
const ready = async (handles: ReadonlyArray<Handle>): Promise<E.Either<StartError, ReadonlyArray<string>>> => {
  const answers = await Promise.all(handles.map((h) => h.next()))
  const backends: string[] = []
  for (const [i, answer] of answers.entries()) {
    if (typeof answer === 'string') return E.left({ _tag: 'ThreadFailed', thread: i + 1, reason: answer })
    if (answer._tag !== 'Ready') return E.left({ _tag: 'ThreadFailed', thread: i + 1, reason: answer._tag === 'Failed' ? answer.message : answer._tag })
    backends.push(answer.backend)
  }
  return E.right(backends)
}

/**
 * Starts `threads - 1` rollout threads (none for 1; `threads` when the caller does not play). Resolves once each has activated its
 * backend and built its environment source; a thread that fails to is a `ThreadFailed` error
 * (the others are stopped). Throws (a programmer error) when `threads` is not a positive integer
 * or the policy has no tokenizer a thread can rebuild (`PolicyStore.recordOf`).
 *
 * @example
 * import { Threads } from '@mtrl/rollout-queue'
 * declare const policy: import('@mtrl/policy').Policy.Policy
 * declare const rollout: import('@mtrl/rollout').Rollout.Options
 * const pool = await Threads.start({ threads: 2, policy, rollout, contextLength: 512, env: { kind: 'textworld', settings: 'w2-o3-q4' }, envs: 'file:///app/envs.js' })()
 *
 * @category constructors
 * @since 0.2.0
 */
export const start =
  (options: Options): TE.TaskEither<StartError, Pool> =>
  async () => {
    if (!Number.isInteger(options.threads) || options.threads < 1) throw new Error(`Threads.start: threads must be a positive integer, got ${options.threads}`)
    const record = PolicyStore.recordOf(options.policy)
    const setup = (i: number) => ({ init: options.init, envs: options.envs, spec: options.env, record, name: `thread ${i}` })
    const workers = (options.callerPlays ?? true) ? options.threads - 1 : options.threads
    const handles = Array.from({ length: workers }, (_, k) => spawn(setup(k + 1), k + 1))
    const stop = async (): Promise<void> => void (await Promise.all(handles.map((h) => h.stop())))
    const backends = await ready(handles)
    if (E.isLeft(backends)) {
      await stop()
      return backends
    }
    let sent = 0
    return E.right({
      _tag: 'RolloutThreads',
      size: handles.length,
      backends: backends.right,
      play: play(options, handles, versions(options.policy), () => void (sent += 1)),
      weightsSent: () => sent,
      alive: () => handles.filter((h) => !h.exited()).length,
      dispose: stop
    })
  }
