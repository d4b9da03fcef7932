/**
 * `mtrl smoke`: one training step of a tiny language model on the chosen backend (default
 * wasm): the quickest proof that the engine, the backend and autodiff work here.
 */
import * as tf from '@tensorflow/tfjs'
import * as E from 'fp-ts/lib/Either.js'
import { backendFlag, intFlag, parseFlags, type Command } from '../Command.js'
import { startBackend } from '../Runtime.js'

export const smoke: Command = {
  name: 'smoke',
  summary: 'one training step of a tiny model on the chosen backend',
  help: `mtrl smoke [--backend wasm] [--steps 1]

Trains a tiny next-token model (one-hot embedding, so the gradient needs no gather) for a few
steps and prints the loss before and after.

Examples:
  mtrl smoke
  mtrl smoke --backend cpu --steps 20`,
  run: (argv) => async () => {
    const flags = parseFlags(argv, { ...backendFlag, steps: { type: 'string' } })
    if (E.isLeft(flags)) return flags
    const parsed = intFlag('steps', flags.right.values.steps, 1)
    if (E.isLeft(parsed)) return parsed
    const steps = parsed.right
    const ready = await startBackend(flags.right.values.backend ?? 'wasm')()
    if (E.isLeft(ready)) return ready
    const vocab = 32
    const owned = (init: tf.Tensor): tf.Variable => {
      const v = tf.variable(init)
      init.dispose()
      return v
    }
    const embedding = owned(tf.randomNormal([vocab, 16], 0, 0.1, 'float32', 1))
    const head = owned(tf.randomNormal([16, vocab], 0, 0.1, 'float32', 2))
    const ids = tf.tensor1d(Array.from({ length: 64 }, (_, i) => i % vocab), 'int32')
    const targets = tf.tensor1d(Array.from({ length: 64 }, (_, i) => (i + 1) % vocab), 'int32')
    const optimizer = tf.train.adam(0.05)
    const lossOf = (): tf.Scalar =>
      tf.tidy(() => tf.losses.softmaxCrossEntropy(tf.oneHot(targets, vocab), tf.matMul(tf.matMul(tf.oneHot(ids, vocab).toFloat(), embedding), head)) as tf.Scalar)
    const read = (s: tf.Scalar): number => {
      const v = s.dataSync()[0]!
      s.dispose()
      return v
    }
    const before = read(lossOf())
    const started = performance.now()
    for (let i = 0; i < Math.max(1, steps); i++) optimizer.minimize(lossOf, false, [embedding, head])
    const ms = performance.now() - started
    const after = read(lossOf())
    optimizer.dispose()
    tf.dispose([embedding, head, ids, targets])
    process.stdout.write(`smoke: ${Math.max(1, steps)} training step(s) on ${tf.getBackend()} in ${ms.toFixed(1)} ms, loss ${before.toFixed(4)} -> ${after.toFixed(4)}\n`)
    return E.right(after < before ? 0 : 1)
  }
}
