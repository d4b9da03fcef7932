/**
 * The bench's worker process: REDIS_URL NAME BACKEND; plays `{ textworld: "wR-oO-qQ" }` jobs.
 */
import { Backend } from '@mtrl/backend'
import type { Env } from '@mtrl/core'
import { Settings, TextWorld } from '@mtrl/env-textworld'
import * as E from 'fp-ts/lib/Either.js'
import { QueueError, Worker } from '../src/index.js'

const [url, name, backend] = process.argv.slice(2)
const parsed = Backend.parseName(backend ?? 'auto')
if (typeof parsed !== 'string') throw new Error(Backend.message(parsed))
await Backend.select(parsed)()
const envs: Worker.EnvResolver = (spec) => {
  const settings = Settings.parse(String((spec as { textworld?: unknown }).textworld))
  return E.map((s: Settings.Settings) => (): Env.Env => TextWorld.make(s))(settings)
}
const started = await Worker.start({ url: url!, name: name!, envs })()
if (E.isLeft(started)) {
  console.error(QueueError.message(started.left))
  process.exit(1)
}
console.log('ready')
process.once(
  'SIGTERM',
  () =>
    void started.right
      .close()()
      .then(() => process.exit(0))
)
