/**
 * What the server's routes read: its options, the planner that checks a request against the
 * model (one random stream seeding the choices of requests without `seed`), and the time the
 * model is listed as created.
 */
import type * as Completions from '../Completions.js'
import type * as Request from '../Request.js'
import type * as Server from '../Server.js'
import type * as E from 'fp-ts/lib/Either.js'
import type * as Conversations from './conversations.js'

export interface RouteContext {
  readonly options: Server.Options
  readonly planOf: (request: Request.ChatRequest) => E.Either<Completions.Refusal, Completions.Plan>
  /** Seconds since the epoch when the server started. */
  readonly created: number
  /** The conversations of the last responses (`previous_response_id`). */
  readonly conversations: Conversations.Conversations
}
