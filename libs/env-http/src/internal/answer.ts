/**
 * What a route answers (a status and a JSON body) and the answers for errors: an environment's
 * `EnvError`, a request that is not JSON or does not decode, a failure of the server's own.
 */
import { Decode, EnvError } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import type * as t from 'io-ts'

/** A status and the JSON body sent with it. */
export interface Answer {
  readonly status: number
  readonly body: unknown
}

/** The HTTP status for an environment's error: 409 for misuse, 500 for the env, 502 for its transport. */
const envErrorStatus = (error: EnvError.EnvError): number => {
  switch (error._tag) {
    case 'NotStarted':
    case 'EpisodeOver':
      return 409
    case 'ResetFailed':
    case 'StepFailed':
      return 500
    case 'Transport':
    case 'Timeout':
    case 'InvalidResponse':
      return 502
  }
}

/** The answer for an environment's error: its fields plus a readable `message`. */
export const envErrorAnswer = (error: EnvError.EnvError): Answer => ({
  status: envErrorStatus(error),
  body: { error: { ...error, message: EnvError.message(error) } }
})

/** The answer `{"error": {"_tag", "message"}}` with the given status. */
export const failure = (status: number, tag: string, message: string): Answer => ({ status, body: { error: { _tag: tag, message } } })

/** Parses `text` as JSON and decodes it with `codec`; a 400 answer when either fails. */
export const decodeBody = <A>(text: string, subject: string, codec: t.Type<A, unknown, unknown>): E.Either<Answer, A> => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    return E.left(failure(400, 'BadJson', `${subject}: the body is not JSON: ${(error as Error).message}`))
  }
  const decoded = Decode.decode(subject, codec)(json)
  return E.isLeft(decoded) ? E.left(failure(400, 'BadRequest', Decode.formatError(decoded.left))) : E.right(decoded.right)
}
