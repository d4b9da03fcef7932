/**
 * `mtrl smoke`: one training step of a tiny language model on the chosen backend (default
 * wasm): the quickest proof that the engine, the backend and autodiff work here.
 */
import { SelfTest } from '@mtrl/backend'
import * as E from 'fp-ts/lib/Either.js'
import { backendFlag, int, make } from '../Command.js'
import { startBackend } from '../Runtime.js'

export const smoke = make({
  name: 'smoke',
  summary: 'one training step of a tiny model on the chosen backend',
  help: `mtrl smoke [--backend wasm] [--steps 1]

Trains a tiny next-token model (one-hot embedding, so the gradient needs no gather) for a few
steps and prints the loss before and after.

Examples:
  mtrl smoke
  mtrl smoke --backend cpu --steps 20`,
  flags: { ...backendFlag, steps: int(1) },
  run:
    ({ values }) =>
    async () => {
      const ready = await startBackend(values.backend ?? 'wasm')()
      if (E.isLeft(ready)) return ready
      const { backend, steps: taken, ms, before, after } = SelfTest.run(values.steps)
      process.stdout.write(`smoke: ${taken} training step(s) on ${backend} in ${ms.toFixed(1)} ms, loss ${before.toFixed(4)} -> ${after.toFixed(4)}\n`)
      return E.right(after < before ? 0 : 1)
    }
})
