import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

const script = resolve(__dirname, 'fixtures/resumable.ts')
const root = mkdtempSync(join(tmpdir(), 'mtrl-resume-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const ITERATIONS = 6

const child = (dir: string, out: string) =>
  spawn(process.execPath, ['--conditions=@mtrl/source', '--import', 'tsx', script, dir, String(ITERATIONS), out], {
    cwd: resolve(__dirname, '..'),
    stdio: ['ignore', 'ignore', 'pipe']
  })

const exited = (p: ReturnType<typeof child>): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> =>
  new Promise((done) => {
    let stderr = ''
    p.stderr?.on('data', (d: Buffer) => (stderr += d.toString()))
    p.on('exit', (code, signal) => done({ code, signal, stderr }))
  })

type Line = Record<string, number>
const lines = (file: string): Line[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((l) => {
          try {
            return l.trim() === '' ? [] : [JSON.parse(l) as Line]
          } catch {
            return [] // a line cut by SIGKILL
          }
        })
    : []

describe('Checkpointing', () => {
  it('a run killed by SIGKILL resumes from its last checkpoint and reproduces the uninterrupted metrics', async () => {
    // 1. the uninterrupted run
    const refOut = join(root, 'reference.jsonl')
    const ref = await exited(child(join(root, 'reference'), refOut))
    expect(ref.code, ref.stderr).toBe(0)
    const reference = new Map(
      lines(refOut)
        .filter((l) => l['iteration'] !== undefined)
        .map((l) => [l['iteration']!, l])
    )
    expect(reference.size).toBe(ITERATIONS)

    // 2. the same run, killed once it has logged 3 iterations, then restarted on the same directory
    const dir = join(root, 'killed')
    const out = join(root, 'killed.jsonl')
    const first = child(dir, out)
    const firstExit = exited(first)
    await new Promise<void>((done) => {
      const poll = setInterval(() => {
        if (lines(out).filter((l) => l['iteration'] !== undefined).length >= 3 || first.exitCode !== null) {
          clearInterval(poll)
          first.kill('SIGKILL')
          done()
        }
      }, 20)
    })
    const killed = await firstExit
    expect(killed.signal).toBe('SIGKILL')
    expect(readdirSync(dir).some((n) => n.startsWith('iter-'))).toBe(true)
    const second = await exited(child(dir, out))
    expect(second.code, second.stderr).toBe(0)

    const all = lines(out)
    const starts = all.filter((l) => l['start'] !== undefined).map((l) => l['start']!)
    expect(starts[0]).toBe(0)
    expect(starts[1]).toBeGreaterThan(0) // resumed, not restarted
    const logged = all.filter((l) => l['iteration'] !== undefined)
    expect(new Set(logged.map((l) => l['iteration'])).size).toBe(ITERATIONS)
    for (const l of logged) expect(l).toEqual(reference.get(l['iteration']!))
  }, 180_000)
})
