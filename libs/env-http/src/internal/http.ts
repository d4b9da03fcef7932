/**
 * JSON over HTTP with node:http / node:https and keep-alive agents: one timeout per attempt,
 * bounded retries on the statuses and network failures the caller names, every failure as data.
 *
 * Not `fetch`: on this loopback, undici's fetch costs about 3x node:http per request (measured
 * 4.6 ms vs 1.5 ms per `/step`, 2 cores, Node 20), which matters for many small env steps.
 */
import type { TaskEither } from 'fp-ts/lib/TaskEither.js'
import * as http from 'node:http'
import * as https from 'node:https'

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
  const e = error as { message?: string; code?: string; errors?: ReadonlyArray<{ message?: string; code?: string }> }
  // A refused connection to "localhost" tries every address and fails with an AggregateError.
  const first = e.errors?.[0]
  const code = e.code ?? first?.code ?? 'UNKNOWN'
  const reason = e.message !== undefined && e.message !== '' ? e.message : (first?.message ?? String(error))
  return { reason: code === 'UNKNOWN' || reason.includes(code) ? reason : `${reason} (${code})`, code }
}

const retryAfterMs = (header: string | undefined): number | undefined => {
  if (header === undefined) return undefined
  const seconds = Number(header)
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, 10_000) : undefined
}

type Attempt =
  | { readonly _tag: 'Done'; readonly response: Response }
  | { readonly _tag: 'Failed'; readonly failure: HttpFailure; readonly retry: boolean; readonly waitMs?: number }

// Idle sockets are dropped after 4 s, before the usual 5 s keep-alive of servers (Node,
// uvicorn), so a request rarely lands on a socket the server is closing.
const agents = {
  'http:': new http.Agent({ keepAlive: true, timeout: 4_000 }),
  'https:': new https.Agent({ keepAlive: true, timeout: 4_000 })
}

interface Raw {
  readonly status: number
  readonly retryAfter: string | undefined
  readonly text: string
}

/** One HTTP exchange with node:http over a keep-alive agent; rejects with a `TimeoutError` after `timeoutMs`. */
const exchange = (request: Request): Promise<Raw> =>
  new Promise((resolve, reject) => {
    const url = new URL(request.url)
    const secure = url.protocol === 'https:'
    if (!secure && url.protocol !== 'http:') return reject(Object.assign(new Error(`unsupported protocol ${url.protocol}`), { code: 'EPROTO' }))
    const body = request.body === undefined ? undefined : Buffer.from(JSON.stringify(request.body))
    const headers: Record<string, string | number> = { accept: 'application/json', ...request.headers }
    if (body !== undefined) {
      headers['content-type'] = 'application/json'
      headers['content-length'] = body.length
    }
    const req = (secure ? https : http).request(url, { method: request.method, headers, agent: agents[secure ? 'https:' : 'http:'] }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => {
        clearTimeout(timer)
        const retryAfter = res.headers['retry-after']
        resolve({
          status: res.statusCode ?? 0,
          retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
          text: Buffer.concat(chunks).toString('utf8')
        })
      })
      res.on('error', (error) => {
        clearTimeout(timer)
        reject(error)
      })
    })
    const timer = setTimeout(
      () => req.destroy(Object.assign(new Error(`no answer within ${request.timeoutMs} ms`), { name: 'TimeoutError' })),
      request.timeoutMs
    )
    req.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    req.end(body)
  })

const attempt = async (request: Request, attempts: number): Promise<Attempt> => {
  let res: Raw
  try {
    res = await exchange(request)
  } catch (error) {
    if ((error as { name?: string }).name === 'TimeoutError')
      return { _tag: 'Failed', failure: { _tag: 'Timeout', ms: request.timeoutMs, attempts }, retry: request.retryTimeouts }
    const { reason, code } = describe(error)
    return { _tag: 'Failed', failure: { _tag: 'Transport', reason, code, attempts }, retry: request.retryCodes.includes(code) }
  }
  const text = res.text
  if (res.status < 200 || res.status >= 300) {
    const waitMs = retryAfterMs(res.retryAfter)
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
