/**
 * Reading a request body under a size limit, and writing JSON answers (OpenAI's error object
 * among them).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import * as Response from '../Response.js'

export type Body = { readonly _tag: 'Read'; readonly text: string } | { readonly _tag: 'TooLarge' } | { readonly _tag: 'Aborted' }

/** The body as text, or `TooLarge` once it passes `limit` bytes (the rest is drained, so the client reads the 413). */
export const read = (req: IncomingMessage, limit: number): Promise<Body> =>
  new Promise((resolve) => {
    const declared = Number(req.headers['content-length'])
    if (Number.isFinite(declared) && declared > limit) {
      req.resume()
      return resolve({ _tag: 'TooLarge' })
    }
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size <= limit) chunks.push(chunk)
    })
    req.on('end', () => resolve(size > limit ? { _tag: 'TooLarge' } : { _tag: 'Read', text: Buffer.concat(chunks).toString('utf8') }))
    req.on('error', () => resolve({ _tag: 'Aborted' }))
  })

/** Writes `body` as JSON with `status` (nothing when the answer has started or the client is gone). */
export const json = (res: ServerResponse, status: number, body: unknown): void => {
  if (res.headersSent || res.destroyed) return
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

/** Answers with OpenAI's error object and `status` (nothing when the answer has started or the client is gone). */
export const fail = (res: ServerResponse, status: number, message: string, type: string, param: string | null = null, code: string | null = null): void =>
  json(res, status, Response.error(message, type, param, code))
