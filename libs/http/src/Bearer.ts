/**
 * Bearer tokens: whether a request's `Authorization` header is `Bearer <token>`, compared in
 * constant time (no timing tells how much of a guess was right).
 *
 * @since 0.1.0
 */
import { timingSafeEqual } from 'node:crypto'

/**
 * Whether `header` is exactly `Bearer <token>`.
 *
 * @example
 * import { Bearer } from '@mtrl/http'
 * Bearer.matches('Bearer s3cret', 's3cret') // true
 * Bearer.matches(undefined, 's3cret') // false
 *
 * @category destructors
 * @since 0.1.0
 */
export const matches = (header: string | undefined, token: string): boolean => {
  const given = Buffer.from(header ?? '')
  const wanted = Buffer.from(`Bearer ${token}`)
  return given.length === wanted.length && timingSafeEqual(given, wanted)
}

/**
 * Whether a request may pass: no token is set, or its header carries it.
 *
 * @category destructors
 * @since 0.1.0
 */
export const allows = (token: string | undefined, header: string | undefined): boolean => token === undefined || matches(header, token)
