import { spawn } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const bin = join(__dirname, '..', 'bin', 'mtrl.mjs')
let server: Server
let url = ''
const requests: Array<{ model: string; messages: Array<{ role: string; content: string }> }> = []

beforeAll(async () => {
  // A minimal OpenAI-compatible chat server: it always answers "inventory".
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      requests.push(JSON.parse(body))
      res.setHeader('content-type', 'application/json')
      res.end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: 'inventory' }, finish_reason: 'stop' }]
        })
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const run = (args: ReadonlyArray<string>): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, OPENAI_API_KEY: 'test' } })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })

describe('mtrl eval with a remote OpenAI-compatible model', () => {
  it('plays every held-out episode through chat messages and reports the metrics', async () => {
    const { code, stdout, stderr } = await run(['eval', '--base-url', url, '--model', 'tiny', 'textworld', '--config', 'w1-o2-q2', '--episodes', '3'])
    expect(code, stderr).toBe(0)
    const summary = JSON.parse(stdout)
    expect(summary.played).toBe(3)
    expect(summary.results[0].successRate).toBe(0)
    expect(summary.results[0].episodes).toBe(3)
    expect(summary.results[0].ci95.high).toBeGreaterThan(0)
    expect(requests.length).toBeGreaterThanOrEqual(3 * 4)
    expect(requests[0]!.model).toBe('tiny')
    expect(requests[0]!.messages[0]!.role).toBe('system')
    // the first user message carries the game's objective and first room
    expect(requests[0]!.messages[1]!.content).toMatch(/-= .* =-/)
  }, 120_000)
})
