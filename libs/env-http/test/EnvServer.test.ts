import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import * as _ from '../src/EnvServer.js'
import * as LockEnv from './fixtures/LockEnv.js'

const startOrThrow = async (options: _.Options): Promise<_.EnvServer> => {
  const started = await _.start(options)()
  if (E.isLeft(started)) throw new Error(started.left.reason)
  return started.right
}

interface Reply {
  readonly status: number
  readonly json: unknown
}

const request = async (url: string, init: RequestInit = {}): Promise<Reply> => {
  const res = await fetch(url, init)
  return { status: res.status, json: JSON.parse(await res.text()) as unknown }
}
const post = (url: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> =>
  request(url, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers })

const errorTag = (reply: Reply): unknown => (reply.json as { error?: { _tag?: unknown } }).error?._tag
const errorMessage = (reply: Reply): string => String((reply.json as { error?: { message?: unknown } }).error?.message)

let closed = 0
let server: _.EnvServer
beforeAll(async () => {
  server = await startOrThrow({ factory: () => LockEnv.make({ onClose: () => (closed += 1) }), maxBodyBytes: 1024 })
})
afterAll(() => server.close()())

const stillServes = async (): Promise<void> => {
  expect(await request(`${server.url}/`)).toEqual({ status: 200, json: 'ok' })
  const { json } = await post(`${server.url}/create`, {})
  const id = (json as { id: number }).id
  expect((await post(`${server.url}/reset`, { id, seed: 2 })).status).toBe(200)
  expect((await post(`${server.url}/close`, { id })).json).toEqual({ closed: true })
}

describe('EnvServer', () => {
  it('binds 127.0.0.1 and answers health, list and spec', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(await request(`${server.url}/`)).toEqual({ status: 200, json: 'ok' })
    expect(await request(`${server.url}/spec`)).toEqual({ status: 200, json: LockEnv.make().spec })
    const { json } = await post(`${server.url}/create`, {})
    const { id } = json as { id: number }
    expect((await request(`${server.url}/list_envs`)).json).toContain(id)
    await post(`${server.url}/close`, { id })
    expect((await request(`${server.url}/list_envs`)).json).not.toContain(id)
  })

  it('accepts the AgentGym seed names and env_idx ids', async () => {
    const { id } = (await post(`${server.url}/create`, {})).json as { id: number }
    const seeded = await post(`${server.url}/reset`, { env_idx: id, data_idx: 5 })
    expect(seeded.json).toMatchObject({ observation: expect.stringContaining('Seed 5.'), goal: 'Open the lock of safe #5.' })
    const game = await post(`${server.url}/reset`, { id, game: 6 })
    expect((game.json as { observation: string }).observation).toContain('Seed 6.')
    expect((game.json as { available_actions: string[] }).available_actions).toEqual(LockEnv.DIGITS)
    await post(`${server.url}/close`, { id })
  })

  const bad: ReadonlyArray<{ name: string; path: string; body: string; status: number; tag: string; says: string }> = [
    { name: 'malformed JSON', path: '/step', body: '{"id": 0, "action": ', status: 400, tag: 'BadJson', says: 'not JSON' },
    { name: 'a wrong type', path: '/step', body: '{"id": 0, "action": 7}', status: 400, tag: 'BadRequest', says: 'action: expected string, got 7' },
    { name: 'a negative id', path: '/close', body: '{"id": -3}', status: 400, tag: 'BadRequest', says: 'expected EnvId' },
    { name: 'a missing seed', path: '/reset', body: '{"id": 0}', status: 400, tag: 'BadRequest', says: 'seed' },
    { name: 'an unknown id', path: '/step', body: '{"id": 99999, "action": "one"}', status: 404, tag: 'UnknownEnv', says: 'no environment with id 99999' },
    { name: 'an unknown route', path: '/teleport', body: '{}', status: 404, tag: 'NotFound', says: 'POST /teleport' }
  ]
  for (const { name, path, body, status, tag, says } of bad)
    it(`answers ${name} with ${status} ${tag} and keeps serving`, async () => {
      const reply = await post(`${server.url}${path}`, body)
      expect(reply.status).toBe(status)
      expect(errorTag(reply)).toBe(tag)
      expect(errorMessage(reply)).toContain(says)
      await stillServes()
    })

  it('answers a body over the limit with 413, declared or streamed, and keeps serving', async () => {
    const huge = JSON.stringify({ id: 0, action: 'x'.repeat(1 << 20) })
    const declared = await post(`${server.url}/step`, huge)
    expect(declared.status).toBe(413)
    expect(errorMessage(declared)).toContain('the limit is 1024')
    const chunk = new TextEncoder().encode('x'.repeat(4096))
    let sent = 0
    const stream = new ReadableStream<Uint8Array>({
      pull: (controller) => {
        if (sent++ < 64) controller.enqueue(chunk)
        else controller.close()
      }
    })
    const streamed = await request(`${server.url}/step`, { method: 'POST', body: stream, duplex: 'half' } as RequestInit)
    expect(streamed.status).toBe(413)
    expect(errorTag(streamed)).toBe('TooLarge')
    await stillServes()
  })

  it('answers other methods with 405', async () => {
    const reply = await request(`${server.url}/step`, { method: 'PUT', body: '{}' })
    expect(reply.status).toBe(405)
    expect(errorTag(reply)).toBe('MethodNotAllowed')
  })

  it('answers any JSON or text body with 2xx or 4xx and a JSON error, never a crash', async () => {
    const body = fc.oneof(
      fc.string(),
      fc.json(),
      fc.jsonValue().map((v) => JSON.stringify({ id: 0, ...(typeof v === 'object' && v !== null && !Array.isArray(v) ? v : { v }) }))
    )
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/reset', '/step', '/close', '/create'), body, async (path, text) => {
        const reply = await post(`${server.url}${path}`, text)
        expect(reply.status === 200 || (reply.status >= 400 && reply.status < 500) || /crash/.test(text)).toBe(true)
        if (reply.status >= 400) expect(typeof errorMessage(reply)).toBe('string')
      }),
      { numRuns: 150 }
    )
    await stillServes()
  })

  it('answers a retried step (same seq) from memory and refuses steps out of order', async () => {
    const { id } = (await post(`${server.url}/create`, {})).json as { id: number }
    await post(`${server.url}/reset`, { id, seed: 3 })
    const first = await post(`${server.url}/step`, { id, action: 'nonsense', seq: 0 })
    const again = await post(`${server.url}/step`, { id, action: 'nonsense', seq: 0 })
    expect(again).toEqual(first)
    expect((first.json as { info: { extra: { turn: number } } }).info.extra.turn).toBe(1)
    const skipped = await post(`${server.url}/step`, { id, action: 'one', seq: 5 })
    expect(skipped.status).toBe(409)
    expect(errorTag(skipped)).toBe('OutOfOrder')
    const next = await post(`${server.url}/step`, { id, action: 'nonsense', seq: 1 })
    expect((next.json as { info: { extra: { turn: number } } }).info.extra.turn).toBe(2)
    await post(`${server.url}/close`, { id })
  })
})

describe('EnvServer limits', () => {
  it('requires the bearer token on every route but health', async () => {
    const guarded = await startOrThrow({ factory: () => LockEnv.make(), token: 's3cret' })
    try {
      expect((await request(`${guarded.url}/`)).status).toBe(200)
      const missing = await post(`${guarded.url}/create`, {})
      expect(missing.status).toBe(401)
      expect(errorTag(missing)).toBe('Unauthorized')
      expect((await post(`${guarded.url}/create`, {}, { authorization: 'Bearer wrong!' })).status).toBe(401)
      expect((await request(`${guarded.url}/list_envs`)).status).toBe(401)
      expect(await post(`${guarded.url}/create`, {}, { authorization: 'Bearer s3cret' })).toEqual({ status: 200, json: { id: 0 } })
    } finally {
      await guarded.close()()
    }
  })

  it('refuses environments beyond maxEnvs with 503 until one is closed', async () => {
    const capped = await startOrThrow({ factory: () => LockEnv.make(), maxEnvs: 2 })
    try {
      const a = await post(`${capped.url}/create`, {})
      await post(`${capped.url}/create`, {})
      const third = await post(`${capped.url}/create`, {})
      expect(third.status).toBe(503)
      expect(errorTag(third)).toBe('AtCapacity')
      await post(`${capped.url}/close`, { id: (a.json as { id: number }).id })
      expect((await post(`${capped.url}/create`, {})).status).toBe(200)
      expect(capped.size()).toBe(2)
    } finally {
      await capped.close()()
    }
  })

  it('closes environments left idle', async () => {
    let reaped = 0
    const idle = await startOrThrow({ factory: () => LockEnv.make({ onClose: () => (reaped += 1) }), idleMs: 50 })
    try {
      const { id } = (await post(`${idle.url}/create`, {})).json as { id: number }
      await vi.waitFor(() => expect(idle.size()).toBe(0), { timeout: 5_000, interval: 20 })
      expect(reaped).toBeGreaterThanOrEqual(1)
      expect((await post(`${idle.url}/reset`, { id, seed: 1 })).status).toBe(404)
    } finally {
      await idle.close()()
    }
  })

  it('shuts down gracefully: finishes the step in flight, closes every environment, then stops listening', async () => {
    let shut = 0
    const s = await startOrThrow({ factory: () => LockEnv.make({ hangMs: 300, onClose: () => (shut += 1) }) })
    const ids: number[] = []
    for (let i = 0; i < 3; i++) ids.push(((await post(`${s.url}/create`, {})).json as { id: number }).id)
    await post(`${s.url}/reset`, { id: ids[0], seed: 1 })
    const inFlight = post(`${s.url}/step`, { id: ids[0], action: 'hang' })
    await new Promise((r) => setTimeout(r, 50))
    await s.close()()
    expect((await inFlight).json).toMatchObject({ observation: 'late' })
    expect(shut).toBeGreaterThanOrEqual(3)
    await expect(fetch(`${s.url}/`)).rejects.toThrow()
  })

  it('reports a port in use as ListenFailed', async () => {
    const taken = await _.start({ factory: () => LockEnv.make(), port: server.port })()
    expect(E.isLeft(taken) && taken.left._tag).toBe('ListenFailed')
  })
})
