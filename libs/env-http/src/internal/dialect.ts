/**
 * How each AgentGym environment family spells the protocol: the id field, the reset body, where
 * the reward is, and how an answer becomes an mtrl Observation or StepResult.
 */
import { Decode, type Env, type EnvError } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import * as Protocol from '../Protocol.js'

export type Family = 'mtrl' | 'alfworld' | 'babyai' | 'sciworld' | 'textcraft' | 'webshop'

/** Client-side running totals for servers that do not report them. */
export interface Tally {
  score: number
}

export interface Dialect {
  readonly idKey: 'id' | 'env_idx'
  readonly resetBody: (id: number, seed: number) => Record<string, unknown>
  /** WebShop answers `/reset` with `[text, null]` and serves the text at `GET /observation`. */
  readonly observationAfterReset: boolean
  /** mtrl servers accept `seq` on `/step` and answer a repeated step from memory. */
  readonly sendsSeq: boolean
  readonly decodeReset: (call: string, json: unknown, tally: Tally) => E.Either<string, Env.Observation>
  readonly decodeStep: (call: string, json: unknown, tally: Tally) => E.Either<string, Env.StepResult>
}

const decoding =
  <A>(codec: t.Type<A, unknown, unknown>) =>
  (call: string, json: unknown): E.Either<string, A> =>
    pipe(Decode.decode(`${call} response`, codec)(json), E.mapLeft(Decode.formatError))

const textOf = (answer: Protocol.AgentGymAnswer): string => ('observation' in answer ? answer.observation : answer.state)

const TASK = /Your task is to:\s*(.+)/

const goalOf = (answer: Protocol.AgentGymAnswer, text: string): string => answer.task_description ?? TASK.exec(text)?.[1]?.trim() ?? ''

const agentGym = (idKey: 'id' | 'env_idx', reward: 'reward' | 'score', resetBody: Dialect['resetBody'], observationAfterReset = false): Dialect => {
  const answer = decoding(Protocol.AgentGymAnswer)
  const info = (tally: Tally, a: Protocol.AgentGymAnswer): Env.StepInfo => ({
    valid: true,
    score: tally.score,
    maxScore: 1,
    ...(a.available_actions === undefined ? {} : { admissibleActions: a.available_actions })
  })
  return {
    idKey,
    resetBody,
    observationAfterReset,
    sendsSeq: false,
    decodeReset: (call, json, tally) =>
      pipe(
        answer(call, typeof json === 'string' ? { observation: json } : json),
        E.map((a) => {
          tally.score = 0
          const text = textOf(a)
          return { goal: goalOf(a, text), text, info: info(tally, a) }
        })
      ),
    decodeStep: (call, json, tally) =>
      pipe(
        answer(call, json),
        E.chain((a) => {
          const r = a[reward] ?? a.reward ?? a.score
          if (r === undefined) return E.left(`invalid ${call} response:\n  ${reward}: expected number, got undefined`)
          if (a.done === undefined) return E.left(`invalid ${call} response:\n  done: expected boolean, got undefined`)
          tally.score += r
          return E.right({ observation: textOf(a), reward: r, done: a.done, won: a.won ?? (a.done && r > 0), info: info(tally, a) })
        })
      )
  }
}

const mtrl: Dialect = {
  idKey: 'id',
  resetBody: (id, seed) => ({ id, seed }),
  observationAfterReset: false,
  sendsSeq: true,
  decodeReset: (call, json) => pipe(decoding(Protocol.ResetResponse)(call, json), E.map(Protocol.decodeReset)),
  decodeStep: (call, json) => pipe(decoding(Protocol.StepResponse)(call, json), E.map(Protocol.decodeStep))
}

export const dialects: Readonly<Record<Family, Dialect>> = {
  mtrl,
  alfworld: agentGym('id', 'reward', (id, seed) => ({ id, game: seed, world_type: 'Text' })),
  babyai: agentGym('id', 'score', (id, seed) => ({ id, data_idx: seed })),
  sciworld: agentGym('id', 'score', (id, seed) => ({ id, data_idx: seed })),
  textcraft: agentGym('id', 'reward', (id, seed) => ({ id, data_idx: seed })),
  webshop: agentGym('env_idx', 'reward', (id, seed) => ({ env_idx: id, session_id: seed }), true)
}

/** An EnvError an mtrl server sent back in its error body, rebuilt for the client. */
const RemoteEnvError = t.union([
  t.exact(t.type({ _tag: t.literal('ResetFailed'), env: t.string, seed: t.number, reason: t.string })),
  t.exact(t.type({ _tag: t.literal('StepFailed'), env: t.string, action: t.string, reason: t.string })),
  t.exact(t.type({ _tag: t.literal('NotStarted'), env: t.string })),
  t.exact(t.type({ _tag: t.literal('EpisodeOver'), env: t.string }))
])

export const remoteEnvError = (body: string): EnvError.EnvError | undefined => {
  try {
    const json = JSON.parse(body) as { error?: unknown }
    const decoded = RemoteEnvError.decode(json.error)
    return E.isRight(decoded) ? decoded.right : undefined
  } catch {
    return undefined
  }
}

/** The `message` of an mtrl error body, else the body itself. */
export const errorMessage = (body: string): string => {
  try {
    const json = JSON.parse(body) as unknown
    return E.isRight(Protocol.ErrorBody.decode(json)) ? (json as Protocol.ErrorBody).error.message : body
  } catch {
    return body
  }
}
