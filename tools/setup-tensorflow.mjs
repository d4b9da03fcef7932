#!/usr/bin/env node
/**
 * `npm ci`'s postinstall: build the native `tensorflow` backend (@tensorflow/tfjs-node) when this
 * machine can, so that `auto` picks the fastest backend a user can have; otherwise say so in one
 * line and leave mtrl on wasm. Never fails the install (exit code 0 whatever happens).
 *
 * The build is tools/setup-tfjs-node.sh (libtensorflow from the tensorflow-cpu wheel of the
 * machine's pip index, then node-gyp; ~1 min and 1.1 GB in .cache/ the first time, seconds
 * after); its output goes to .cache/setup-tensorflow.log. Skipped when the binding already loads,
 * when MTRL_TENSORFLOW=skip, or off Linux x64 (the wheel's libraries are Linux x86-64 builds).
 * Retry by hand with `npm run setup:tensorflow`.
 */
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { mkdirSync, writeFileSync } from 'node:fs'
import { arch, platform } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const log = join(root, '.cache', 'setup-tensorflow.log')
const say = (line) => console.log(`mtrl: ${line}`)
const fallback = (why) => say(`the native tensorflow backend was not built (${why}); mtrl runs on wasm. Retry: npm run setup:tensorflow`)

/** Whether the binding loads in a fresh process (loading it in this one would keep its threads). */
const loads = () => {
  const require = createRequire(join(root, 'apps', 'mtrl', 'package.json'))
  let entry
  try {
    entry = require.resolve('@tensorflow/tfjs-node')
  } catch {
    return false
  }
  return spawnSync(process.execPath, ['-e', `require(${JSON.stringify(entry)})`], { stdio: 'ignore', timeout: 60_000 }).status === 0
}

const main = () => {
  if (process.env.MTRL_TENSORFLOW === 'skip') return say('MTRL_TENSORFLOW=skip: the native tensorflow backend is not built; mtrl runs on wasm')
  if (platform() !== 'linux' || arch() !== 'x64') return fallback(`no libtensorflow route for ${platform()} ${arch()}`)
  if (loads()) return say('the native tensorflow backend is built (auto picks it)')
  mkdirSync(dirname(log), { recursive: true })
  const started = Date.now()
  const built = spawnSync('bash', [join(root, 'tools', 'setup-tfjs-node.sh')], { cwd: root, encoding: 'utf8', timeout: 15 * 60_000 })
  writeFileSync(log, `${built.stdout ?? ''}\n${built.stderr ?? ''}\n${built.error ? String(built.error) : ''}`)
  const seconds = ((Date.now() - started) / 1000).toFixed(0)
  if (loads()) return say(`built the native tensorflow backend in ${seconds} s (auto picks it; details in .cache/setup-tensorflow.log)`)
  const last = `${built.stderr ?? ''}${built.error ? ` ${built.error.message}` : ''}`.trim().split('\n').filter(Boolean).at(-1) ?? `exit code ${built.status}`
  fallback(`${last.slice(0, 160)}; details in .cache/setup-tensorflow.log`)
}

try {
  main()
} catch (e) {
  fallback(e instanceof Error ? e.message : String(e))
}
