/**
 * The load test's server, in its own process (the client gets the other core): prints its URL.
 */
import { EnvServer } from '../src/index.js'
import * as CounterEnv from './counterEnv.js'

const started = await EnvServer.start({ factory: CounterEnv.make, maxEnvs: 128 })()
if (started._tag === 'Left') {
  console.error(started.left.reason)
  process.exit(1)
}
console.log(started.right.url)
process.on(
  'SIGTERM',
  () =>
    void started.right
      .close()()
      .then(() => process.exit(0))
)
