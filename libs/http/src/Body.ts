/**
 * Request bodies under a size limit, and JSON answers.
 *
 * @since 0.1.0
 */
import type { IncomingMessage, ServerResponse } from 'node:http'

/**
 * A request body: its text, `TooLarge` (with the bytes declared or counted so far), or
 * `Aborted` (the client went away).
 *
 * @category models
 * @since 0.1.0
 */
export type Body = { readonly _tag: 'Read'; readonly text: string } | { readonly _tag: 'TooLarge'; readonly bytes: number } | { readonly _tag: 'Aborted' }

/** Reads and drops the rest of a refused body, up to `budget` bytes; beyond that the socket is cut. */
const drain = (req: IncomingMessage, budget: number): void => {
  let left = budget
  req.on('data', (chunk: Buffer) => {
    left -= chunk.length
    if (left < 0) req.socket.destroy()
  })
  req.resume()
}

/**
 * The body as text, or `TooLarge` as soon as it passes `limit` bytes (by its Content-Length or by
 * counting). Past the limit the rest is read and dropped, up to `drainBytes` (default 16 times
 * the limit, at least 8 MiB), so the client reads the 413 instead of a reset connection; beyond
 * that the socket is cut.
 *
 * @category constructors
 * @since 0.1.0
 */
export const read = (req: IncomingMessage, limit: number, drainBytes: number = Math.max(16 * limit, 8 << 20)): Promise<Body> =>
  new Promise((resolve) => {
    const declared = Number(req.headers['content-length'])
    if (Number.isFinite(declared) && declared > limit) {
      resolve({ _tag: 'TooLarge', bytes: declared })
      drain(req, drainBytes)
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer): void => {
      size += chunk.length
      if (size > limit) {
        req.off('data', onData)
        req.off('end', onEnd)
        resolve({ _tag: 'TooLarge', bytes: size })
        drain(req, drainBytes - size)
        return
      }
      chunks.push(chunk)
    }
    const onEnd = (): void => resolve({ _tag: 'Read', text: Buffer.concat(chunks).toString('utf8') })
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', () => resolve({ _tag: 'Aborted' }))
    req.on('aborted', () => resolve({ _tag: 'Aborted' }))
  })

/**
 * Answers `body` as JSON with `status` and `headers`; nothing when the answer has started or the
 * client is gone.
 *
 * @category destructors
 * @since 0.1.0
 */
export const json = (res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void => {
  if (res.headersSent || res.destroyed) return
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers })
  res.end(text)
}
