/**
 * What a sandboxed script holds by itself when the code under test starts (see
 * `Sandbox.Baseline`), measured by running it: its address space (`VmSize` of
 * `/proc/self/status`) and its V8 heap in use. The run's caps are then this plus what the code
 * may use, so the code gets `memoryMb`, whatever Node and the script take for themselves.
 */
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import * as E from 'fp-ts/lib/Either.js'
import type { Baseline } from '../Sandbox.js'
import { childEnv } from './child.js'

/** JavaScript that prints the measurement as one line `mtrl-baseline {"addressSpaceMb":..,"heapMb":..}` on fd 1. */
export const REPORT =
  "(() => { const fs = require('node:fs'); const s = fs.readFileSync('/proc/self/status', 'utf8'); const kb = Number(/VmSize:\\s+(\\d+)/.exec(s)[1]); fs.writeSync(1, 'mtrl-baseline ' + JSON.stringify({ addressSpaceMb: kb / 1024, heapMb: process.memoryUsage().heapUsed / 1048576 }) + '\\n') })()"

/** Reads the measurement from a probe's stdout. */
const parse = (stdout: string): Baseline | undefined => {
  const line = stdout.split('\n').find((l) => l.startsWith('mtrl-baseline '))
  if (line === undefined) return undefined
  const b = JSON.parse(line.slice('mtrl-baseline '.length)) as Partial<Baseline>
  return typeof b.addressSpaceMb === 'number' && typeof b.heapMb === 'number' && b.addressSpaceMb > 0
    ? { addressSpaceMb: b.addressSpaceMb, heapMb: b.heapMb }
    : undefined
}

/**
 * Runs `node args` (with the sandbox's environment, `input` on stdin and a pipe on fd 3, as a
 * run has) and reads the measurement it prints; `Left` says why there is none.
 */
export const measure = (args: ReadonlyArray<string>, input?: string): E.Either<string, Baseline> => {
  const r = spawnSync(process.execPath, args, {
    input: input ?? '',
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    env: childEnv(tmpdir()),
    timeout: 30_000,
    maxBuffer: 1 << 20
  })
  const found = parse(String(r.stdout ?? ''))
  if (found !== undefined) return E.right(found)
  const why =
    r.error?.message ??
    `exit ${r.status ?? r.signal}: ${
      String(r.stderr ?? '')
        .trim()
        .split('\n')[0] ?? ''
    }`
  return E.left(`the memory baseline probe failed (${why})`)
}

let bare: E.Either<string, Baseline> | undefined

/** A bare Node's baseline with the run's flags (`--zero-fill-buffers`; once per process): the baseline of a plain script. */
export const bareNode = (): E.Either<string, Baseline> => {
  bare ??= measure(['--no-warnings', '--zero-fill-buffers', '-e', REPORT])
  return bare
}
