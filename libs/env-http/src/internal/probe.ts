/**
 * A server's health probe: `GET /` answers within `timeoutMs` (no retries).
 */
import * as E from 'fp-ts/lib/Either.js'
import * as Http from './http.js'

export const probe = async (url: string, timeoutMs: number, token: string | undefined): Promise<boolean> => {
  const answer = await Http.send({
    method: 'GET',
    url: `${url.replace(/\/+$/, '')}/`,
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    timeoutMs,
    retries: 0,
    backoffMs: 0,
    retryStatuses: [],
    retryCodes: [],
    retryTimeouts: false
  })()
  return E.isRight(answer)
}
