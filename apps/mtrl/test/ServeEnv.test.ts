import { spawn, type ChildProcess } from 'node:child_process'
import { Agent, request } from 'node:http'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const bin = join(__dirname, '..', 'bin', 'mtrl.mjs')

interface Served {
  readonly child: ChildProcess
  readonly url: string
  readonly output: () => string
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** `mtrl serve-env textworld` on a free port, resolved once it prints its URL. */
const serve = (): Promise<Served> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'serve-env', 'textworld', '--config', 'w1-o2-q2', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.once('exit', (code, signal) => done({ code, signal })))
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString()
      const m = /serving .* at (http:\/\/\S+)/.exec(stdout)
      if (m !== null) resolve({ child, url: m[1]!, output: () => stdout, exited })
    })
    void exited.then(({ code }) => reject(new Error(`serve-env exited with ${code} before serving: ${stderr}`)))
  })

/** A JSON request over a keep-alive agent (so the connection stays open after the answer). */
const post = (agent: Agent, url: string, path: string, body: unknown): Promise<{ status: number; body: unknown }> =>
  new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = ''
      res.on('data', (d: Buffer) => (text += d.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }))
    })
    req.once('error', reject)
    req.end(JSON.stringify(body))
  })

/**
 * A step the server holds in flight for as long as the test wants: sent with
 * `Expect: 100-continue`, so `received` resolves once the server has taken the request (its
 * handler has started); the body follows on `finish`.
 */
const heldStep = (url: string, id: number) => {
  const body = JSON.stringify({ id, action: 'look' })
  let received = (): void => undefined
  const taken = new Promise<void>((resolve) => (received = resolve))
  const req = request(`${url}/step`, {
    method: 'POST',
    agent: false,
    headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), expect: '100-continue' }
  })
  const answer = new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    req.once('response', (res) => {
      let text = ''
      res.on('data', (d: Buffer) => (text += d.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }))
    })
    req.once('error', reject)
  })
  req.once('continue', () => received())
  req.flushHeaders()
  return { taken, answer, finish: () => void req.end(body) }
}

const outputHas = (served: Served, pattern: RegExp): Promise<void> =>
  new Promise((resolve) => {
    const check = (): void => {
      if (pattern.test(served.output())) {
        served.child.stdout!.off('data', check)
        resolve()
      }
    }
    served.child.stdout!.on('data', check)
    check()
  })

describe('mtrl serve-env', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`stops on ${signal}: a request in flight is answered, an idle keep-alive connection does not hold it, exit code 0`, async () => {
      const served = await serve()
      const agent = new Agent({ keepAlive: true })
      try {
        const created = await post(agent, served.url, '/create', {})
        expect(created.status).toBe(200)
        const id = (created.body as { id: number }).id
        expect((await post(agent, served.url, '/reset', { id, seed: 3 })).status).toBe(200)
        // a step the server has started to read when the signal comes; its body arrives during the shutdown
        const held = heldStep(served.url, id)
        await held.taken
        served.child.kill(signal)
        await outputHas(served, /shutting down/)
        held.finish()
        const answered = await held.answer
        expect(answered.status, JSON.stringify(answered.body)).toBe(200)
        expect(answered.body).toMatchObject({ done: expect.any(Boolean) })
        const { code } = await served.exited
        expect(code).toBe(0)
        expect(served.output()).toMatch(/shutting down\nstopped\n/)
        // nothing listens any more
        await expect(post(new Agent(), served.url, '/create', {})).rejects.toThrow(/ECONNREFUSED/)
      } finally {
        agent.destroy()
        served.child.kill('SIGKILL')
      }
    }, 60_000)
  }
})
