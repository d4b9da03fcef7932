import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import * as http from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import * as Bearer from '../src/Bearer.js'
import * as Body from '../src/Body.js'
import * as Listen from '../src/Listen.js'
import * as Sse from '../src/Sse.js'
import * as Traffic from '../src/Traffic.js'

const open: http.Server[] = []
afterEach(async () => {
  for (const s of open.splice(0)) {
    s.closeAllConnections()
    await new Promise((done) => s.close(done))
  }
})

/** A server on a free port of 127.0.0.1 answering with `listener`. */
const serve = async (listener: http.RequestListener): Promise<{ server: http.Server; url: string }> => {
  const server = http.createServer(listener)
  open.push(server)
  const bound = await Listen.listen(server, '127.0.0.1', 0)
  if (E.isLeft(bound)) throw new Error(bound.left.reason)
  return { server, url: bound.right.url }
}

/** A raw POST (so that the body's declared length and its chunks are ours to choose). */
const post = (url: string, chunks: ReadonlyArray<string>, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> =>
  new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers }, (res) => {
      let text = ''
      res.on('data', (c: Buffer) => (text += c.toString('utf8')))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
    })
    req.on('error', reject)
    for (const c of chunks) req.write(c)
    req.end()
  })

describe('Bearer', () => {
  it('matches exactly "Bearer <token>"', () => {
    expect(Bearer.matches('Bearer s3cret', 's3cret')).toBe(true)
    expect(Bearer.matches('bearer s3cret', 's3cret')).toBe(false)
    expect(Bearer.matches('Bearer s3cret ', 's3cret')).toBe(false)
    expect(Bearer.matches(undefined, 's3cret')).toBe(false)
    expect(Bearer.allows(undefined, undefined)).toBe(true)
    expect(Bearer.allows('t', 'Bearer u')).toBe(false)
  })

  it('property: a header matches if and only if it is the token with its scheme', () => {
    fc.assert(fc.property(fc.string(), fc.string(), (token, header) => Bearer.matches(header, token) === (header === `Bearer ${token}`)))
    fc.assert(fc.property(fc.string(), (token) => Bearer.matches(`Bearer ${token}`, token)))
  })
})

describe('Body', () => {
  const echo = (limit: number) => async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const body = await Body.read(req, limit)
    if (body._tag === 'Read') return Body.json(res, 200, { text: body.text })
    if (body._tag === 'TooLarge') return Body.json(res, 413, { bytes: body.bytes }, { connection: 'close' })
  }

  it('reads a body within the limit, and answers JSON with its length', async () => {
    const { url } = await serve((req, res) => void echo(10)(req, res))
    expect(await post(url, ['héllo'])).toEqual({ status: 200, text: '{"text":"héllo"}' })
    const res = await fetch(url, { method: 'POST', body: 'x' })
    expect([res.headers.get('content-type'), res.headers.get('content-length')]).toEqual(['application/json; charset=utf-8', '12'])
  })

  it('refuses a body over the limit by its declared length or by counting, and the client reads the 413', async () => {
    const { url } = await serve((req, res) => void echo(10)(req, res))
    expect(await post(url, ['0123456789abc'], { 'content-length': '13' })).toEqual({ status: 413, text: '{"bytes":13}' })
    // chunked: no declared length, counted as it comes
    expect(await post(url, ['0123456', '789ab', 'cdef'])).toEqual({ status: 413, text: '{"bytes":12}' })
  })

  it('writes nothing once an answer has started', async () => {
    const { url } = await serve((_req, res) => {
      Body.json(res, 200, { first: true })
      Body.json(res, 500, { second: true })
    })
    const res = await fetch(url)
    expect([res.status, await res.text()]).toEqual([200, '{"first":true}'])
  })
})

describe('Sse', () => {
  it('formats events as data lines, named or not', () => {
    expect(Sse.format({ n: 1 })).toBe('data: {"n":1}\n\n')
    expect(Sse.format('a\nb', 'tick')).toBe('event: tick\ndata: "a\\nb"\n\n')
  })

  it('streams events and a last line to a client', async () => {
    const { url } = await serve((_req, res) => {
      Sse.open(res)
      Sse.send(res, { n: 1 })
      Sse.send(res, { n: 2 }, 'tick')
      Sse.end(res, '[DONE]')
    })
    const res = await fetch(url)
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    expect(await res.text()).toBe('data: {"n":1}\n\nevent: tick\ndata: {"n":2}\n\ndata: [DONE]\n\n')
  })
})

describe('Traffic', () => {
  const answers: Traffic.Answers = {
    closing: (res) => Body.json(res, 503, 'closing'),
    busy: (res, max) => Body.json(res, 429, `busy ${max}`),
    failed: (res, error) => Body.json(res, 500, `failed: ${(error as Error).message}`)
  }
  /** A route that answers when `release` is called (`/slow`), throws (`/throw`), or answers at once. */
  const routes = () => {
    const waiting: Array<() => void> = []
    const route: Traffic.Route = async (req, res) => {
      if (req.url === '/throw') throw new Error('boom')
      if (req.url === '/slow') await new Promise<void>((done) => waiting.push(done))
      Body.json(res, 200, req.url)
    }
    return { route, release: () => waiting.splice(0).forEach((done) => done()), waiting: () => waiting.length }
  }
  const until = async (ok: () => boolean): Promise<void> => {
    while (!ok()) await new Promise((done) => setTimeout(done, 5))
  }

  it('counts requests in flight, refuses beyond the limit, answers for a route that throws', async () => {
    const traffic = Traffic.make()
    const { route, release, waiting } = routes()
    const { url } = await serve(Traffic.listener(traffic, answers, route, 1))
    const slow = fetch(`${url}/slow`)
    await until(() => waiting() === 1)
    expect(traffic.inFlight).toBe(1)
    const busy = await fetch(`${url}/fast`)
    expect([busy.status, await busy.json()]).toEqual([429, 'busy 1'])
    release()
    expect((await slow).status).toBe(200)
    const thrown = await fetch(`${url}/throw`)
    expect([thrown.status, await thrown.json()]).toEqual([500, 'failed: boom'])
    expect(traffic.inFlight).toBe(0)
  })

  it('close lets the requests in flight finish, then frees, drops connections and stops; twice is once', async () => {
    const traffic = Traffic.make()
    const { route, release, waiting } = routes()
    const { server, url } = await serve(Traffic.listener(traffic, answers, route))
    const slow = fetch(`${url}/slow`)
    await until(() => waiting() === 1)
    const events: string[] = []
    const closing = Traffic.close(server, traffic, 10_000, async () => void events.push('freed'))
    expect(Traffic.close(server, traffic, 10_000)).toBe(closing)
    void closing.then(() => events.push('closed'))
    await new Promise((done) => setTimeout(done, 30))
    expect(events).toEqual([])
    release()
    expect((await slow).status).toBe(200)
    await closing
    expect(events).toEqual(['freed', 'closed'])
    expect(server.listening).toBe(false)
  })

  it('close gives up on a request that outlasts the grace period', async () => {
    const traffic = Traffic.make()
    const { route, waiting } = routes()
    const { server, url } = await serve(Traffic.listener(traffic, answers, route))
    const slow = fetch(`${url}/slow`).then(
      () => 'answered',
      () => 'dropped'
    )
    await until(() => waiting() === 1)
    const started = Date.now()
    await Traffic.close(server, traffic, 100)
    expect(Date.now() - started).toBeGreaterThanOrEqual(90)
    expect(await slow).toBe('dropped')
  })

  it('refuses what comes while closing', async () => {
    const traffic = Traffic.make()
    const { route } = routes()
    const listener = Traffic.listener(traffic, answers, route)
    traffic.closing = true
    const { url } = await serve(listener)
    const res = await fetch(url)
    expect([res.status, await res.json()]).toEqual([503, 'closing'])
  })
})

describe('Listen', () => {
  it('binds a free port and names the one it cannot bind', async () => {
    const { url } = await serve((_req, res) => res.end())
    const port = Number(new URL(url).port)
    expect(url).toBe(`http://127.0.0.1:${port}`)
    const second = http.createServer()
    const failed = await Listen.listen(second, '127.0.0.1', port)
    expect(failed).toEqual(E.left({ _tag: 'ListenFailed', host: '127.0.0.1', port, reason: expect.stringContaining('EADDRINUSE') }))
    expect(Listen.urlOf('::1', 8000)).toBe('http://[::1]:8000')
  })
})
