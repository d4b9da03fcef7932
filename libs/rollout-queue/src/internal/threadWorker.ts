/**
 * A rollout thread: activates the caller's backend (its init module), builds the environment
 * source of the spec it was given and, at its first slice, its copy of the policy (the model
 * record and the weights); then plays each slice it is sent on its own sampler session and
 * environments, after assigning the weights that came with it (only when they changed). See
 * ../Threads.ts for the caller's side.
 */
import type { Env } from '@mtrl/core'
import { Sampler } from '@mtrl/policy'
import * as tf from '@tensorflow/tfjs'
import * as E from 'fp-ts/lib/Either.js'
import { parentPort, workerData } from 'node:worker_threads'
import * as PolicyStore from '../PolicyStore.js'
import { cachedSources, envPool } from './envPool.js'
import { playSlice, resultOf } from './slice.js'
import type { Slice } from './slice.js'
import type { Request, Response, Setup, Weights } from './threadProtocol.js'

const setup = workerData as Setup
const port = parentPort!
const answer = (response: Response): void => port.postMessage(response)

const importDefault = async (url: string): Promise<(data: unknown) => unknown> => {
  const module = (await import(url)) as { readonly default?: (data: unknown) => unknown }
  if (typeof module.default !== 'function') throw new Error(`${url} has no default export to call`)
  return module.default
}

/** The thread's policy at `weights`: built at the first slice, its variables assigned afterwards. */
const current = (built: PolicyStore.Built | undefined, weights: Weights | undefined): PolicyStore.Built => {
  if (weights === undefined) {
    if (built === undefined) throw new Error('rollout thread: the first slice came without weights')
    return built
  }
  const host = new Map(weights)
  if (built === undefined) return PolicyStore.fromRecord(setup.record, host)
  for (const [name, v] of Object.entries(built.policy.variables)) {
    const w = host.get(name)
    if (w === undefined) throw new Error(`rollout thread: no weights for ${name}`)
    tf.tidy(() => v.assign(tf.tensor(w.data, [...w.shape])))
  }
  return built
}

/** Plays one slice with a session of its size on the pool's environments. */
const play = async (built: PolicyStore.Built, pool: ReturnType<typeof envPool>, slice: Slice): Promise<Response> => {
  const slots = slice.seeds.length * slice.groupSize
  const envs = pool.take(setup.spec, slots)
  if (E.isLeft(envs)) return { _tag: 'Failed', message: `the environment spec cannot be built here: ${envs.left}` }
  const session = Sampler.make(built.policy, { slots, maxLen: slice.contextLength })
  try {
    const generator = { session, template: built.template, tokenizer: built.tokenizer, contextLength: slice.contextLength }
    const played = await playSlice(slice, generator, envs.right)
    return E.isLeft(played) ? { _tag: 'EnvFailed', error: played.left } : { _tag: 'Played', result: resultOf(slice, played.right, setup.name) }
  } finally {
    session.dispose()
    pool.give(setup.spec, envs.right)
  }
}

const run = async (): Promise<void> => {
  try {
    if (setup.init !== undefined) await (await importDefault(setup.init.url))(setup.init.data)
    await tf.ready()
    const decode = (await importDefault(setup.envs)) as (spec: unknown) => E.Either<string, Env.EnvSource>
    const sources = cachedSources(decode)
    const checked = sources.envs(setup.spec)
    if (E.isLeft(checked)) throw new Error(`the environment spec cannot be built here: ${checked.left}`)
    const pool = envPool(sources.envs)
    let built: PolicyStore.Built | undefined
    // one request at a time: the caller sends the next only after this one's answer
    port.on('message', (request: Request) => {
      void (async () => {
        try {
          if (request._tag === 'Close') {
            await pool.close()
            sources.dispose()
            built?.policy.dispose()
            return answer({ _tag: 'Closed' })
          }
          built = current(built, request.weights)
          answer(await play(built, pool, request.slice))
        } catch (e) {
          answer({ _tag: 'Failed', message: e instanceof Error ? e.message : String(e) })
        }
      })()
    })
    answer({ _tag: 'Ready', backend: tf.getBackend() })
  } catch (e) {
    answer({ _tag: 'Failed', message: e instanceof Error ? e.message : String(e) })
  }
}

void run()
