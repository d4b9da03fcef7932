/**
 * Tensor-leak checks: every tensor test asserts that it leaves as many live tensors as it found.
 *
 * @since 0.1.0
 */
import * as tf from '@tensorflow/tfjs'

/**
 * Runs `body` and throws if the number of live tensors changed. Variables created inside must
 * be disposed inside.
 *
 * @example
 * await expectNoLeak(() => { const x = tf.ones([2]); x.dispose() })
 *
 * @category assertions
 * @since 0.1.0
 */
export const expectNoLeak = async <A>(body: () => A | Promise<A>): Promise<A> => {
  const before = tf.memory().numTensors
  const result = await body()
  const after = tf.memory().numTensors
  if (after !== before) throw new Error(`tensor leak: ${after - before} tensors (${before} before, ${after} after)`)
  return result
}
