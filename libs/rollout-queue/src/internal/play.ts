/**
 * What a worker does with one job: decode it, load its policy version, take environments, play
 * the episodes and encode the result, reporting as it goes. Retryable failures throw an `Error`;
 * those a retry cannot fix throw an `UnrecoverableError`.
 */
import { Decode, type Env, type EnvError } from '@mtrl/core'
import { Sampler } from '@mtrl/policy'
import type { Rollout } from '@mtrl/rollout'
import { UnrecoverableError, type Job } from 'bullmq'
import * as E from 'fp-ts/lib/Either.js'
import type * as PolicyStore from '../PolicyStore.js'
import * as QueueError from '../QueueError.js'
import * as Wire from '../Wire.js'
import type { Event } from '../Worker.js'
import type { EnvPool } from './envPool.js'
import { playSlice, resultOf } from './slice.js'

/** What playing a job needs of the worker. */
export interface Player {
  readonly name: string
  readonly report: (event: Event) => void
  readonly policies: PolicyStore.Cache
  readonly envs: EnvPool
  /** Called once per job finished. */
  readonly onFinished: () => void
}

/** Each call yields to the event loop first, so the job's lock is renewed between turns. */
const yielding = (env: Env.Env): Env.Env => {
  const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))
  return {
    spec: env.spec,
    reset: (seed) => async () => (await tick(), env.reset(seed)()),
    step: (action) => async () => (await tick(), env.step(action)()),
    close: env.close
  }
}

/** The job's payload; a payload that does not decode cannot be played on a retry either. */
const decodeJob = (job: Job, id: string): Wire.Job => {
  const decoded = Decode.decode(`job ${id}`, Wire.Job)(job.data)
  if (E.isLeft(decoded)) throw new UnrecoverableError(QueueError.message(QueueError.badMessage(`job ${id}`, Decode.formatError(decoded.left))))
  return decoded.right
}

/** The job's policy version; a Redis outage is worth a retry, a missing or broken version is not. */
const loadPolicy = async (policies: PolicyStore.Cache, ref: Wire.PolicyRef): Promise<PolicyStore.Loaded> => {
  const loaded = await policies.get(ref)()
  if (E.isLeft(loaded)) {
    const reason = QueueError.message(loaded.left)
    throw loaded.left._tag === 'RedisUnavailable' ? new Error(reason) : new UnrecoverableError(reason)
  }
  return loaded.right
}

/** `slots` environments for the job; when its spec cannot be built here, the policy is released and the job fails for good. */
const takeEnvs = (envs: EnvPool, loaded: PolicyStore.Loaded, data: Wire.Job, slots: number, id: string): Env.Env[] => {
  const taken = envs.take(data.env, slots)
  if (E.isLeft(taken)) {
    loaded.release()
    throw new UnrecoverableError(`job ${id}: the environment spec cannot be built here: ${taken.left}`)
  }
  return taken.right
}

/** Plays the job's episodes with the session; an environment's failure is thrown as JSON `{"_tag": "EnvFailed", error}`. */
const playEpisodes = async (
  data: Wire.Job,
  loaded: PolicyStore.Loaded,
  session: Sampler.SamplerSession,
  envs: ReadonlyArray<Env.Env>
): Promise<Rollout.Result> => {
  const generator = { session, template: loaded.template, tokenizer: loaded.tokenizer, contextLength: data.contextLength }
  const played = await playSlice(data, generator, envs.map(yielding))
  if (E.isLeft(played)) throw new Error(JSON.stringify({ _tag: 'EnvFailed', error: played.left satisfies EnvError.EnvError }))
  return played.right
}

/** Plays one job and returns its encoded `Wire.JobResult`; reports `Started`, then `Finished` or `Failed`. */
export const play =
  ({ name, report, policies, envs, onFinished }: Player) =>
  async (job: Job): Promise<unknown> => {
    const id = job.id ?? '?'
    const data = decodeJob(job, id)
    const slots = data.seeds.length * data.groupSize
    report({ _tag: 'Started', job: id, attempt: job.attemptsMade + 1, episodes: slots })
    const loaded = await loadPolicy(policies, data.policy)
    const taken = takeEnvs(envs, loaded, data, slots, id)
    const session = Sampler.make(loaded.policy, { slots, maxLen: data.contextLength })
    try {
      const played = await playEpisodes(data, loaded, session, taken)
      const result = resultOf(data, played, name)
      onFinished()
      const { seconds, tokensPerSecond } = played.metrics
      report({ _tag: 'Finished', job: id, episodes: result.episodes.length, seconds, tokensPerSecond })
      return Wire.JobResult.encode(result)
    } catch (e) {
      report({ _tag: 'Failed', job: id, reason: e instanceof Error ? e.message : String(e) })
      throw e
    } finally {
      session.dispose()
      loaded.release()
      envs.give(data.env, taken)
    }
  }
