import { Rng } from '@mtrl/core'
import * as tf from '@tensorflow/tfjs'
import type * as Policy from '../src/Policy.js'

/** Canon weights start at zero; random ones (the same on every backend) make a test see them. */
export const randomCanon = (policy: Policy.Policy, seed: number): Policy.Policy => {
  const rng = Rng.make(seed)
  for (const [name, v] of Object.entries(policy.variables))
    if (name.includes('canon'))
      tf.tidy(() =>
        v.assign(
          tf.tensor(
            Float32Array.from({ length: v.size }, () => rng.next() - 0.5),
            v.shape
          )
        )
      )
  return policy
}
