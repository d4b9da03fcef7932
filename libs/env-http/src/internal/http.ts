/**
 * JSON over HTTP with Node's built-in fetch: one timeout per attempt, bounded retries on the
 * statuses and network failures the caller names, every failure as data.
 */
import type { TaskEither } from 'fp-ts/lib/TaskEither.js'

export type HttpFailure =
  | { readonly _tag: 'Timeout'; readonly ms: number; readonly attempts: number }
  | { readonly _tag: 'Transport'; readonly reason: string; readonly code: string; readonly attempts: number }
  | { readonly _tag: 'Status'; readonly status: number; readonly body: string; readonly attempts: number }
  | { readonly _tag: 'Json'; readonly reason: string; readonly attempts: number }

export interface Request {
  readonly method: 'GET' | 'POST'
  readonly url: string
  readonly body?: unknown
  readonly headers?: Readonly<Record<string, string>>
  readonly timeoutMs: number
  /** Extra attempts after the first one. */
  readonly retries: number
  /** Statuses worth another attempt (e.g. 503). */
  readonly retryStatuses: ReadonlyArray<number>
  /** Network error codes worth another attempt (e.g. ECONNRESET). */
  readonly retryCodes: ReadonlyArray<string>
  /** Whether a timeout is worth another attempt. */
  readonly retryTimeouts: boolean
  /** First back-off; doubles per attempt, capped at 8x. */
  readonly backoffMs: number
}

export interface Response {
  readonly status: number
  readonly json: unknown
}

/** Network error codes of a failed connection (the request may not have reached the server). */
export const connectionCodes: ReadonlyArray<string> = ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNABORTED']

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

const describe = (error: unknown): { reason: string; code: string } => {
  const e = error as { message?: string; code?: string; cause?: { message?: string; code?: string; cause?: { code?: string } } }
  const cause = e.cause
  const code = cause?.code ?? cause?.cause?.code ?? e.code ?? 'UNKNOWN'
  const reason = cause?.message !== undefined && cause.message !== '' ? cause.message : (e.message ?? String(error))
  return { reason: code === 'UNKNOWN' || reason.includes(code) ? reason : `${reason} (${code})`, code }
}

const retryAfterMs = (header: string | null): number | undefined => {
  if (header === null) return undefined
  const seconds = Number(header)
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, 10_000) : undefined
}

type Attempt =
  | { readonly _tag: 'Done'; readonly response: Response }
  | { readonly _tag: 'Failed'; readonly failure: HttpFailure; readonly retry: boolean; readonly waitMs?: number }

const attempt = async (request: Request, attempts: number): Promise<Attempt> => {
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers }
  if (request.body !== undefined) headers['content-type'] = 'application/json'
  let res: globalThis.Response
  try {
    res = await fetch(request.url, {
      method: request.method,
      headers,
      body: request.body === undefined ? null : JSON.stringify(request.body),
      signal: AbortSignal.timeout(request.timeoutMs)
    })
  } catch (error) {
    const name = (error as { name?: string }).name
    if (name === 'TimeoutError' || name === 'AbortError')
      return { _tag: 'Failed', failure: { _tag: 'Timeout', ms: request.timeoutMs, attempts }, retry: request.retryTimeouts }
    const { reason, code } = describe(error)
    return { _tag: 'Failed', failure: { _tag: 'Transport', reason, code, attempts }, retry: request.retryCodes.includes(code) }
  }
  let text: string
  try {
    text = await res.text()
  } catch (error) {
    const name = (error as { name?: string }).name
    if (name === 'TimeoutError' || name === 'AbortError')
      return { _tag: 'Failed', failure: { _tag: 'Timeout', ms: request.timeoutMs, attempts }, retry: request.retryTimeouts }
    const { reason, code } = describe(error)
    return { _tag: 'Failed', failure: { _tag: 'Transport', reason, code, attempts }, retry: request.retryCodes.includes(code) }
  }
  if (res.status < 200 || res.status >= 300) {
    const waitMs = retryAfterMs(res.headers.get('retry-after'))
    return {
      _tag: 'Failed',
      failure: { _tag: 'Status', status: res.status, body: text.length > 500 ? `${text.slice(0, 497)}...` : text, attempts },
      retry: request.retryStatuses.includes(res.status),
      ...(waitMs === undefined ? {} : { waitMs })
    }
  }
  try {
    return { _tag: 'Done', response: { status: res.status, json: JSON.parse(text) as unknown } }
  } catch (error) {
    const snippet = text.length > 80 ? `${text.slice(0, 77)}...` : text
    return { _tag: 'Failed', failure: { _tag: 'Json', reason: `${(error as Error).message} in ${JSON.stringify(snippet)}`, attempts }, retry: false }
  }
}

/** Sends `request`, retrying as it says; resolves to the parsed JSON of a 2xx answer or the last failure. */
export const send =
  (request: Request): TaskEither<HttpFailure, Response> =>
  async () => {
    for (let n = 1; ; n++) {
      const result = await attempt(request, n)
      if (result._tag === 'Done') return { _tag: 'Right', right: result.response }
      if (!result.retry || n > request.retries) return { _tag: 'Left', left: result.failure }
      await sleep(result.waitMs ?? request.backoffMs * Math.min(2 ** (n - 1), 8))
    }
  }

/** One line for a failure, without the call name. */
export const describeFailure = (failure: HttpFailure): string => {
  const tries = failure.attempts > 1 ? ` (after ${failure.attempts} attempts)` : ''
  switch (failure._tag) {
    case 'Timeout':
      return `no answer within ${failure.ms} ms${tries}`
    case 'Transport':
      return `${failure.reason}${tries}`
    case 'Status':
      return `HTTP ${failure.status}: ${failure.body}${tries}`
    case 'Json':
      return `the body is not JSON: ${failure.reason}`
  }
}
