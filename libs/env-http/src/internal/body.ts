/**
 * Reading a request body under a size limit, and writing JSON answers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'

export type Body = { readonly _tag: 'Read'; readonly text: string } | { readonly _tag: 'TooLarge'; readonly bytes: number } | { readonly _tag: 'Aborted' }

/**
 * The body as text, or `TooLarge` as soon as it passes `limit` bytes (by its Content-Length
 * or by counting). Past the limit the rest is read and dropped, up to `drainBytes`, so the
 * client gets the 413 instead of a reset connection; beyond that the socket is cut.
 */
export const read = (req: IncomingMessage, limit: number, drainBytes: number): Promise<Body> =>
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

const drain = (req: IncomingMessage, budget: number): void => {
  let left = budget
  req.on('data', (chunk: Buffer) => {
    left -= chunk.length
    if (left < 0) req.socket.destroy()
  })
  req.resume()
}

/** Writes `body` as JSON with `status`. */
export const json = (res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void => {
  if (res.headersSent || res.destroyed) return
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers })
  res.end(text)
}

/** Writes `{"error": {"_tag", "message", ...fields}}`. */
export const error = (
  res: ServerResponse,
  status: number,
  tag: string,
  message: string,
  fields: Readonly<Record<string, unknown>> = {},
  headers: Readonly<Record<string, string>> = {}
): void => json(res, status, { error: { _tag: tag, message, ...fields } }, headers)
