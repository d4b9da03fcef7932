/**
 * Adam's state as data, for checkpoints and resume: the step count and the first and second
 * moments of every variable, keyed `${owner}/${name}/m` and `${owner}/${name}/v` (owner
 * `policy` or `critic`, name the Hugging Face name), so a resumed run restores them onto freshly
 * loaded variables whatever their tf names.
 *
 * TensorFlow.js keeps Adam's moments by position in the variable list given to `minimize`:
 * {@link restore} takes that list, in that order.
 *
 * @since 0.1.0
 */
import * as tf from '@tensorflow/tfjs'
import type { Task } from 'fp-ts/lib/Task.js'
import type { Critic } from './Critic.js'
import type { HostTensor, Policy } from './Policy.js'
import { nameOf } from './internal/weights.js'

/**
 * @category models
 * @since 0.1.0
 */
export interface OptimizerState {
  /** Optimizer steps taken. */
  readonly step: number
  readonly moments: ReadonlyMap<string, HostTensor>
}

/**
 * The models whose variables an optimizer updates.
 *
 * @category models
 * @since 0.1.0
 */
export interface Owners {
  readonly policy: Policy
  readonly critic?: Critic
}

const keyOf = (owners: Owners): ((variable: tf.Variable) => string) => {
  const byTfName = new Map<string, string>()
  for (const v of Object.values(owners.policy.variables)) byTfName.set(v.name, `policy/${nameOf(v)}`)
  for (const v of Object.values(owners.critic?.variables ?? {})) byTfName.set(v.name, `critic/${nameOf(v)}`)
  return (variable) => {
    const key = byTfName.get(variable.name)
    if (key === undefined) throw new Error(`OptimizerState: variable ${variable.name} belongs to neither the policy nor the critic`)
    return key
  }
}

/**
 * Reads an Adam optimizer's state. `variables` is the list given to `minimize`, in order.
 *
 * @category constructors
 * @since 0.1.0
 */
export const capture =
  (optimizer: tf.AdamOptimizer, owners: Owners, variables: ReadonlyArray<tf.Variable>): Task<OptimizerState> =>
  async () => {
    const weights = await optimizer.getWeights()
    const [iter, ...moments] = weights
    const step = iter === undefined ? 0 : (await iter.tensor.data())[0]!
    iter?.tensor.dispose()
    const key = keyOf(owners)
    const n = moments.length / 2
    if (n > 0 && n !== variables.length) throw new Error(`OptimizerState.capture: the optimizer has moments for ${n} variables, ${variables.length} given`)
    const out = new Map<string, HostTensor>()
    moments.forEach((m, i) => {
      const v = variables[i % Math.max(n, 1)]!
      out.set(`${key(v)}/${i < n ? 'm' : 'v'}`, { shape: m.tensor.shape, data: new Float32Array(m.tensor.dataSync()) })
    })
    return { step, moments: out }
  }

/**
 * Restores a state onto a fresh Adam optimizer (same hyper-parameters) for `variables`, the
 * list that will be given to `minimize`, in that order.
 *
 * @category destructors
 * @since 0.1.0
 */
export const restore =
  (optimizer: tf.AdamOptimizer, state: OptimizerState, owners: Owners, variables: ReadonlyArray<tf.Variable>): Task<void> =>
  async () => {
    const key = keyOf(owners)
    const made: tf.Tensor[] = [tf.scalar(state.step, 'int32')]
    const named: Array<{ name: string; tensor: tf.Tensor }> = [{ name: 'iter', tensor: made[0]! }]
    if (state.moments.size > 0)
      for (const which of ['m', 'v'] as const)
        for (const v of variables) {
          const saved = state.moments.get(`${key(v)}/${which}`)
          if (saved === undefined) throw new Error(`OptimizerState.restore: no ${which} moment for ${key(v)}`)
          const tensor = tf.tensor(saved.data, [...saved.shape])
          made.push(tensor)
          named.push({ name: `${v.name}/${which}`, tensor })
        }
    await optimizer.setWeights(named)
    made.forEach((t) => t.dispose())
  }
