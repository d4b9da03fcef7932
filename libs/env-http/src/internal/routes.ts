/**
 * The server's `POST` routes (`/create`, `/reset`, `/step`, `/close`) over a table of
 * environments: each takes the request's body text and returns the answer to send.
 */
import type { Env } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import * as Protocol from '../Protocol.js'
import { type Answer, decodeBody, envErrorAnswer, failure } from './answer.js'
import type * as Table from './table.js'

/** What the routes need: the environments' factory, the table that holds them and its capacity. */
export interface Routes {
  readonly factory: Env.EnvFactory
  readonly table: Table.Table
  readonly maxEnvs: number
}

/** The 404 answer for an id the table does not hold. */
const unknownEnv = (id: number): Answer => failure(404, 'UnknownEnv', `no environment with id ${id}`)

/** Runs `op` on the environment with id `id`, one operation at a time per environment; 404 when there is none. */
const withSlot = async (table: Table.Table, id: number, op: (slot: Table.Slot) => Promise<Answer>): Promise<Answer> => {
  const slot = table.get(id)
  return slot === undefined ? unknownEnv(id) : table.run(slot, () => op(slot))
}

/** `POST /create`: builds an environment and answers its id, or 503 when the table is full. */
const create = async ({ factory, table, maxEnvs }: Routes): Promise<Answer> => {
  const env = factory()
  const id = table.add(env)
  if (id !== undefined) return { status: 200, body: { id } }
  await env.close()()
  return failure(503, 'AtCapacity', `this server holds its maximum of ${maxEnvs} environments; close one first`)
}

/** `POST /reset`: starts a new episode with the request's seed and restarts the step numbering. */
const reset = async ({ table }: Routes, text: string): Promise<Answer> => {
  const request = decodeBody(text, 'POST /reset body', Protocol.ResetRequest)
  if (E.isLeft(request)) return request.left
  const seed = Protocol.seedOf(request.right)
  if (seed === undefined) return failure(400, 'BadRequest', 'invalid POST /reset body:\n  seed: expected Seed, got undefined')
  return withSlot(table, Protocol.idOf(request.right), async (slot) => {
    const result = await slot.env.reset(seed)()
    if (E.isLeft(result)) return envErrorAnswer(result.left)
    slot.nextSeq = 0
    slot.last = undefined
    return { status: 200, body: Protocol.encodeReset(result.right) }
  })
}

/**
 * Plays one step on a slot. With a `seq`, a repeat of the last step gets the same answer again
 * (a retried request) and a step out of order is refused with 409.
 */
const stepSlot = async (slot: Table.Slot, action: Protocol.StepRequest['action'], seq: number | undefined): Promise<Answer> => {
  if (seq !== undefined && slot.last?.seq === seq) return slot.last
  if (seq !== undefined && seq !== slot.nextSeq) return failure(409, 'OutOfOrder', `step seq ${seq} but the next step of this episode is ${slot.nextSeq}`)
  const result = await slot.env.step(action)()
  const answer = E.isLeft(result) ? envErrorAnswer(result.left) : { status: 200, body: Protocol.encodeStep(result.right) }
  slot.nextSeq += 1
  if (seq !== undefined) slot.last = { seq, ...answer }
  return answer
}

/** `POST /step`: plays the request's action in its environment. */
const step = async ({ table }: Routes, text: string): Promise<Answer> => {
  const request = decodeBody(text, 'POST /step body', Protocol.StepRequest)
  if (E.isLeft(request)) return request.left
  const { action, seq } = request.right
  return withSlot(table, Protocol.idOf(request.right), (slot) => stepSlot(slot, action, seq))
}

/** `POST /close`: closes and forgets the request's environment. */
const close = async ({ table }: Routes, text: string): Promise<Answer> => {
  const request = decodeBody(text, 'POST /close body', Protocol.CloseRequest)
  if (E.isLeft(request)) return request.left
  const id = Protocol.idOf(request.right)
  return (await table.remove(id)) ? { status: 200, body: { closed: true } } : unknownEnv(id)
}

/** Answers `POST path` with body `text`; 404 for a path that is not a route. */
export const post =
  (routes: Routes) =>
  (path: string, text: string): Promise<Answer> => {
    switch (path) {
      case '/create':
        return create(routes)
      case '/reset':
        return reset(routes, text)
      case '/step':
        return step(routes, text)
      case '/close':
        return close(routes, text)
      default:
        return Promise.resolve(failure(404, 'NotFound', `no route POST ${path}`))
    }
  }
