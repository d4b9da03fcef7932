/**
 * An mtrl `Env` backed by an environment server that speaks AgentGym's HTTP protocol
 * (`POST /create`, `/reset`, `/step`, `/close`): an mtrl `EnvServer`, or an AgentGym server of
 * one of the families in {@link Family}.
 *
 * One client holds one server-side environment, created on the first `reset` and freed by
 * `close`. Every answer is decoded with io-ts; every failure is an `EnvError` naming the call
 * (`POST http://host:port/step`) and the cause. Requests that meet a 503 or a broken connection
 * are retried a bounded number of times; to mtrl servers each step carries a sequence number so
 * a retried step is answered, never played twice.
 *
 * @since 0.1.0
 */
import { Decode, type Env, EnvError } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import * as t from 'io-ts'
import * as Dialect from './internal/dialect.js'
import * as Http from './internal/http.js'
import * as Protocol from './Protocol.js'

/**
 * Which dialect the server speaks: `mtrl` (an mtrl `EnvServer`) or an AgentGym family.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Family = t.keyof({ mtrl: null, alfworld: null, babyai: null, sciworld: null, textcraft: null, webshop: null })
/** @category models @since 0.1.0 */
export type Family = t.TypeOf<typeof Family>

/**
 * Client settings. Only `baseUrl` is required.
 *
 * - `family`: the server's dialect (default `mtrl`);
 * - `timeoutMs`: per request attempt (default 30 000);
 * - `retries`: extra attempts after a 503 or a broken connection (default 2), `backoffMs` the first pause (default 100);
 * - `token`: sent as `Authorization: Bearer <token>`;
 * - `name`, `maxTurns`, `actionFormat`: the spec, when not read from the server (see {@link connect}).
 *
 * @category codecs
 * @since 0.1.0
 */
export const Options = t.intersection([
  t.type({ baseUrl: t.string }),
  t.partial({
    family: Family,
    timeoutMs: t.number,
    retries: t.number,
    backoffMs: t.number,
    token: t.string,
    name: t.string,
    maxTurns: t.number,
    actionFormat: t.string
  })
])
/** @category models @since 0.1.0 */
export type Options = t.TypeOf<typeof Options>

/** @category constructors @since 0.1.0 */
export const defaultOptions = { family: 'mtrl', timeoutMs: 30_000, retries: 2, backoffMs: 100 } as const

const trimSlash = (url: string): string => url.replace(/\/+$/, '')

/** The spec a client reports when the server does not say. @category constructors @since 0.1.0 */
export const specOf = (options: Options): Env.EnvSpec => ({
  name: options.name ?? `http:${trimSlash(options.baseUrl)}`,
  maxTurns: options.maxTurns ?? 50,
  actionFormat: options.actionFormat ?? 'Write one command per turn, as plain text.'
})

/** A failed call: the error, and the HTTP status when there was an answer. */
interface CallFailure {
  readonly error: EnvError.EnvError
  readonly status: number | undefined
}

type Call = (method: 'GET' | 'POST', path: string, body?: unknown) => TE.TaskEither<CallFailure, unknown>

const makeCall = (options: Options, env: string): Call => {
  const base = trimSlash(options.baseUrl)
  const timeoutMs = options.timeoutMs ?? defaultOptions.timeoutMs
  const headers: Record<string, string> = options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }
  return (method, path, body) => {
    const call = `${method} ${base}${path}`
    return pipe(
      Http.send({
        method,
        url: `${base}${path}`,
        body,
        headers,
        timeoutMs,
        retries: options.retries ?? defaultOptions.retries,
        backoffMs: options.backoffMs ?? defaultOptions.backoffMs,
        retryStatuses: [503],
        retryCodes: Http.connectionCodes,
        retryTimeouts: false
      }),
      TE.bimap(
        (failure): CallFailure => {
          switch (failure._tag) {
            case 'Timeout':
              return { error: EnvError.timeout(env, call, failure.ms), status: undefined }
            case 'Transport':
              return { error: EnvError.transport(env, call, Http.describeFailure(failure)), status: undefined }
            case 'Json':
              return { error: EnvError.invalidResponse(env, call, Http.describeFailure(failure)), status: undefined }
            case 'Status':
              return {
                error:
                  Dialect.remoteEnvError(failure.body) ??
                  EnvError.transport(env, call, Http.describeFailure({ ...failure, body: Dialect.errorMessage(failure.body) })),
                status: failure.status
              }
          }
        },
        (response) => response.json
      )
    )
  }
}

const errorOf = (failure: CallFailure): EnvError.EnvError => failure.error

const check = <A>(env: string, call: string, decoded: E.Either<string, A>): TE.TaskEither<EnvError.EnvError, A> =>
  TE.fromEither(
    pipe(
      decoded,
      E.mapLeft((reason) => EnvError.invalidResponse(env, call, reason))
    )
  )

/** One client's view of its server: the env's name, the server's base URL and dialect, the score so far, the raw call. */
interface Remote {
  readonly name: string
  readonly base: string
  readonly dialect: Dialect.Dialect
  readonly tally: Dialect.Tally
  readonly callWithStatus: Call
}

/** `POST /create`: a new server-side environment's id. */
const createRemote = ({ name, base, callWithStatus }: Remote): TE.TaskEither<EnvError.EnvError, number> =>
  pipe(
    callWithStatus('POST', '/create', {}),
    TE.mapLeft(errorOf),
    TE.chain((json) =>
      check(
        name,
        `POST ${base}/create`,
        pipe(Decode.decode('POST /create response', Protocol.CreateResponse)(json), E.bimap(Decode.formatError, Protocol.createdId))
      )
    )
  )

/** `POST /reset` on environment `envId` (then `GET /observation` for dialects that need it), keeping the HTTP status of a failure. */
const resetRemote =
  ({ name, base, dialect, tally, callWithStatus }: Remote) =>
  (envId: number, seed: number): TE.TaskEither<CallFailure, Env.Observation> =>
    pipe(
      callWithStatus('POST', '/reset', dialect.resetBody(envId, seed)),
      TE.chain((json) => (dialect.observationAfterReset ? callWithStatus('GET', `/observation?${dialect.idKey}=${envId}`) : TE.right(json))),
      TE.chain((json) =>
        pipe(
          check(name, `POST ${base}/reset`, dialect.decodeReset('POST /reset', json, tally)),
          TE.mapLeft((error): CallFailure => ({ error, status: undefined }))
        )
      )
    )

/** `POST /step` on environment `envId`; `seq` is sent to dialects that take it. */
const stepRemote =
  ({ name, base, dialect, tally, callWithStatus }: Remote) =>
  (envId: number, action: string, seq: number): TE.TaskEither<EnvError.EnvError, Env.StepResult> =>
    pipe(
      callWithStatus('POST', '/step', { [dialect.idKey]: envId, action, ...(dialect.sendsSeq ? { seq } : {}) }),
      TE.mapLeft(errorOf),
      TE.chain((json) => check(name, `POST ${base}/step`, dialect.decodeStep('POST /step', json, tally)))
    )

/**
 * A client for one environment on the server at `options.baseUrl`.
 *
 * @example
 * import { HttpEnv } from '@mtrl/env-http'
 * const env = HttpEnv.make({ baseUrl: 'http://127.0.0.1:8000', family: 'alfworld' })
 * const first = await env.reset(3)()          // POST /create, then POST /reset {"id", "game": 3, "world_type": "Text"}
 * const next = await env.step('look')()
 * await env.close()()
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: Options, spec: Env.EnvSpec = specOf(options)): Env.Env => {
  const dialect = Dialect.dialects[options.family ?? defaultOptions.family]
  const remote: Remote = { name: spec.name, base: trimSlash(options.baseUrl), dialect, tally: { score: 0 }, callWithStatus: makeCall(options, spec.name) }
  let id: number | undefined
  let seq = 0
  let started = false
  let over = false

  const create: TE.TaskEither<EnvError.EnvError, number> = pipe(
    createRemote(remote),
    TE.map((created) => {
      id = created
      return created
    })
  )
  const resetOn = resetRemote(remote)

  const reset = (seed: number): TE.TaskEither<EnvError.EnvError, Env.Observation> =>
    pipe(
      id === undefined ? create : TE.right(id),
      TE.chain((envId) =>
        pipe(
          resetOn(envId, seed),
          // The server may have closed an idle environment: make a new one, once.
          TE.orElse((failure) =>
            failure.status === 404
              ? pipe(
                  create,
                  TE.chain((fresh) => pipe(resetOn(fresh, seed), TE.mapLeft(errorOf)))
                )
              : TE.left(failure.error)
          )
        )
      ),
      TE.map((observation) => {
        seq = 0
        started = true
        over = false
        return observation
      })
    )

  const step = (action: string): TE.TaskEither<EnvError.EnvError, Env.StepResult> => {
    if (id === undefined || !started) return TE.left(EnvError.notStarted(spec.name))
    if (over) return TE.left(EnvError.episodeOver(spec.name))
    return pipe(
      stepRemote(remote)(id, action, seq),
      TE.map((result) => {
        seq += 1
        over = result.done
        return result
      })
    )
  }

  const close = () => async (): Promise<void> => {
    const envId = id
    id = undefined
    started = false
    if (envId !== undefined) await remote.callWithStatus('POST', '/close', { [dialect.idKey]: envId })()
  }

  return { spec, reset, step, close }
}

/**
 * Reads the server's spec (`GET /spec`, mtrl servers only) and makes a client with it; other
 * families get {@link specOf}.
 *
 * @category constructors
 * @since 0.1.0
 */
export const connect = (options: Options): TE.TaskEither<EnvError.EnvError, Env.Env> => {
  const family = options.family ?? defaultOptions.family
  if (family !== 'mtrl') return TE.right(make(options))
  const fallback = specOf(options)
  return pipe(
    makeCall(options, fallback.name)('GET', '/spec'),
    TE.mapLeft(errorOf),
    TE.chain((json) =>
      check(
        fallback.name,
        `GET ${trimSlash(options.baseUrl)}/spec`,
        pipe(Decode.decode('GET /spec response', Protocol.SpecResponse)(json), E.mapLeft(Decode.formatError))
      )
    ),
    TE.map((spec) => make(options, spec))
  )
}

/**
 * A remote environment as pipelines use it (`Env.EnvSource`): fresh clients; no expert (SFT on
 * a remote environment reads recorded demonstrations).
 *
 * @example
 * import { HttpEnv } from '@mtrl/env-http'
 * const source = HttpEnv.source({ baseUrl: 'http://127.0.0.1:8000' })
 *
 * @category constructors
 * @since 0.1.0
 */
export const source = (options: Options): Env.EnvSource => {
  const spec = specOf(options)
  return { name: spec.name, maxTurns: spec.maxTurns, make: () => make(options, spec), dispose: () => undefined }
}
