/**
 * A multi-turn agent episode served through `mtrl serve-policy` (for realSize.bench.ts): the
 * server is started on the folder, an agent sends a ~300-token first observation and then three
 * short ones, each time the whole conversation so far with the model's replies (32 tokens each,
 * temperature 1) over the OpenAI chat API. Reports each turn's seconds, the prompt tokens the
 * server counted, and the server's peak resident memory; the server is stopped past the limit.
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Shape } from './realSize.mtrl.js'

export interface Served {
  readonly turns: number
  readonly seconds: ReadonlyArray<number>
  readonly promptTokens: ReadonlyArray<number>
  readonly peak: number
  readonly stopped?: string
}

const rssOf = (pid: number): number => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 2 ** 20
  } catch {
    return 0
  }
}

const words = 'north south east west door key chest table lamp room kitchen hall open take go the a and of to'.split(' ')
const observation = (seed: number, n: number): string => Array.from({ length: n }, (_, i) => words[(seed * 7 + i * i * 13 + i) % words.length]!).join(' ')

export const serveEpisode = async (root: string, dir: string, shape: Shape, env: NodeJS.ProcessEnv, limitGiB: number): Promise<Served> => {
  const port = 18000 + Math.floor(Math.random() * 2000)
  const maxLen = shape.prompt + shape.turns * (shape.newTokens + 80) + 64
  const child = spawn(
    process.execPath,
    [join(root, 'apps/mtrl/bin/mtrl.mjs'), 'serve-policy', dir, '--name', 'policy', '--port', String(port), '--slots', '1', '--max-len', String(maxLen)],
    {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'inherit']
    }
  )
  let peak = 0
  let stopped: string | undefined
  const watch = setInterval(() => {
    const rss = rssOf(child.pid!)
    peak = Math.max(peak, rss)
    const free = Number(/MemAvailable:\s+(\d+)/.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 0) / 2 ** 20
    if ((rss > limitGiB || free < 1.5) && stopped === undefined) {
      stopped = rss > limitGiB ? `resident ${rss.toFixed(1)} GiB > ${limitGiB} GiB` : `machine has ${free.toFixed(1)} GiB available`
      child.kill('SIGKILL')
    }
  }, 200)
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  const ready = await Promise.race([
    new Promise<boolean>((resolve) => child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('serving') && resolve(true))),
    exited.then(() => false)
  ])
  const seconds: number[] = []
  const promptTokens: number[] = []
  try {
    if (ready) await converse(port, shape, seconds, promptTokens)
  } finally {
    child.kill('SIGTERM')
    await exited
    clearInterval(watch)
  }
  return { turns: seconds.length, seconds, promptTokens, peak, ...(stopped === undefined ? {} : { stopped }) }
}

/** The episode's turns, each the whole conversation so far; each turn's seconds and prompt tokens pushed. */
const converse = async (port: number, shape: Shape, seconds: number[], promptTokens: number[]): Promise<void> => {
  const messages: Array<{ role: string; content: string }> = [{ role: 'user', content: observation(0, Math.round(shape.prompt / 4)) }]
  for (let turn = 0; turn < shape.turns; turn++) {
    const start = performance.now()
    const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'policy', messages, max_tokens: shape.newTokens, temperature: 1 })
    })
    const body = (await response.json()) as { choices?: Array<{ message: { content: string } }>; usage?: { prompt_tokens: number } }
    seconds.push((performance.now() - start) / 1000)
    if (body.choices === undefined) throw new Error(`serve-policy answered ${response.status}: ${JSON.stringify(body)}`)
    promptTokens.push(body.usage?.prompt_tokens ?? 0)
    messages.push({ role: 'assistant', content: body.choices[0]!.message.content }, { role: 'user', content: observation(turn + 1, 10) })
  }
}
