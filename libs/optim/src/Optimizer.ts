/**
 * Adam (Kingma & Ba 2015, https://arxiv.org/abs/1412.6980) with a scheduled learning rate and
 * global-norm gradient clipping (Pascanu et al. 2013, https://arxiv.org/abs/1211.5063): the step
 * both trainers take after computing a loss.
 *
 * ```
 * g <- g * min(1, maxNorm / ||g||_2)                  (||g||_2 over all variables together)
 * m <- b1 m + (1 - b1) g ;  v <- b2 v + (1 - b2) g^2 ;  n <- n + 1
 * w <- w - lr * (m / (1 - b1^n)) / (sqrt(v / (1 - b2^n)) + eps)
 * ```
 *
 * Written out (rather than `tf.train.adam`) so that its whole state is the step count and the
 * moments: a checkpoint saves them exactly and a resumed run continues bit for bit (tfjs's Adam
 * recomputes `b^n` with `pow` on restore, which differs in the last bits from the running
 * product it keeps while training).
 *
 * The optimizer is a stateful resource: {@link make}, {@link step}, `dispose`.
 *
 * @since 0.1.0
 */
import * as tf from '@tensorflow/tfjs'
import * as Backprop from './Backprop.js'

/**
 * @category models
 * @since 0.1.0
 */
export interface Optimizer {
  readonly variables: ReadonlyArray<tf.Variable>
  readonly beta1: number
  readonly beta2: number
  readonly epsilon: number
  /** Steps taken so far. */
  readonly steps: () => number
  readonly dispose: () => void
}

interface Internal extends Optimizer {
  readonly m: tf.Variable[]
  readonly v: tf.Variable[]
  readonly count: { n: number }
}

/**
 * Adam over `variables` (betas 0.9 / 0.999, epsilon 1e-8 by default). Moments start at 0.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (
  variables: ReadonlyArray<tf.Variable>,
  options: { readonly beta1?: number; readonly beta2?: number; readonly epsilon?: number } = {}
): Optimizer => {
  const zeroVariable = (w: tf.Variable): tf.Variable => {
    const zeros = tf.zerosLike(w)
    const x = tf.variable(zeros, false)
    zeros.dispose()
    return x
  }
  const m = variables.map(zeroVariable)
  const v = variables.map(zeroVariable)
  const count = { n: 0 }
  const internal: Internal = {
    variables,
    beta1: options.beta1 ?? 0.9,
    beta2: options.beta2 ?? 0.999,
    epsilon: options.epsilon ?? 1e-8,
    steps: () => count.n,
    dispose: () => [...m, ...v].forEach((x) => x.dispose()),
    m,
    v,
    count
  }
  return internal
}

/**
 * What a step reports: the loss, the gradient norm before clipping, and any auxiliary scalars
 * the loss function returned, as numbers (read once, in bulk).
 *
 * @category models
 * @since 0.1.0
 */
export interface StepResult {
  readonly loss: number
  readonly gradNorm: number
  readonly aux: Readonly<Record<string, number>>
}

/**
 * Gradients of `f().loss` with respect to `variables` (zeros for variables the loss does not
 * touch), the loss and any auxiliary scalars `f` returned, read as numbers. The caller owns
 * the gradients.
 *
 * @category combinators
 * @since 0.1.0
 */
export const gradients = (
  variables: ReadonlyArray<tf.Variable>,
  f: () => { readonly loss: tf.Scalar; readonly aux?: Readonly<Record<string, tf.Scalar>> }
): { readonly grads: tf.Tensor[]; readonly loss: number; readonly aux: Readonly<Record<string, number>> } => {
  let aux: Record<string, tf.Scalar> = {}
  const { value, grads } = Backprop.variableGrads(() => {
    const out = f()
    aux = { ...(out.aux ?? {}) }
    for (const s of Object.values(aux)) tf.keep(s)
    return out.loss
  }, variables)
  const gs = variables.map((w) => grads[w.name] ?? tf.zerosLike(w))
  const auxNames = Object.keys(aux)
  const stacked = tf.stack([value, ...auxNames.map((k) => aux[k]!)])
  const values = Array.from(stacked.dataSync())
  tf.dispose([stacked, value, ...Object.values(aux)])
  return { grads: gs, loss: values[0]!, aux: Object.fromEntries(auxNames.map((k, i) => [k, values[i + 1]!])) }
}

/**
 * Gradient accumulation: the sum over `items` of the gradients of `f(item).loss` with respect to
 * `variables`, one backward pass per item (so only one item's activations are alive at a time),
 * with the losses and auxiliary scalars summed. For the sum to be the gradient of the whole
 * batch's loss, each item's loss must be its share of it (e.g. token sums over the whole batch's
 * token count), as for data-parallel shards. With one item it is {@link gradients}. The caller
 * owns the gradients.
 *
 * @example
 * import * as tf from '@tensorflow/tfjs'
 * import { Optimizer } from '@mtrl/optim'
 * const w = tf.variable(tf.scalar(2))
 * const { grads } = Optimizer.accumulatedGradients([w], [1, 3], (x) => ({ loss: tf.mul(w, x) as tf.Scalar }))
 * // grads[0] is 4 (= 1 + 3)
 *
 * @category combinators
 * @since 0.4.0
 */
export const accumulatedGradients = <A>(
  variables: ReadonlyArray<tf.Variable>,
  items: ReadonlyArray<A>,
  f: (item: A) => { readonly loss: tf.Scalar; readonly aux?: Readonly<Record<string, tf.Scalar>> }
): { readonly grads: tf.Tensor[]; readonly loss: number; readonly aux: Readonly<Record<string, number>> } => {
  if (items.length === 0) throw new Error('Optimizer.accumulatedGradients: no item')
  let total = gradients(variables, () => f(items[0]!))
  for (const item of items.slice(1)) {
    const next = gradients(variables, () => f(item))
    const grads = total.grads.map((g, i) => tf.add(g, next.grads[i]!))
    tf.dispose([...total.grads, ...next.grads])
    const aux = { ...total.aux }
    for (const [k, v] of Object.entries(next.aux)) aux[k] = (aux[k] ?? 0) + v
    total = { grads, loss: total.loss + next.loss, aux }
  }
  return total
}

/**
 * Clips `grads` (in the optimizer's variable order) to `maxNorm` (global norm; `Infinity`
 * disables it) and takes one Adam step at `learningRate`. Returns the norm before clipping.
 * The caller keeps owning `grads`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const apply = (optimizer: Optimizer, options: { readonly learningRate: number; readonly maxNorm: number }, grads: ReadonlyArray<tf.Tensor>): number => {
  const o = optimizer as Internal
  if (grads.length !== o.variables.length) throw new Error(`Optimizer.apply: ${grads.length} gradients for ${o.variables.length} variables`)
  const normT = tf.tidy(() => tf.sqrt(tf.addN(grads.map((g) => tf.sum(tf.square(g))))))
  const gradNorm = normT.dataSync()[0]!
  normT.dispose()
  const scale = Number.isFinite(options.maxNorm) && gradNorm > options.maxNorm ? options.maxNorm / gradNorm : 1
  o.count.n += 1
  const n = o.count.n
  const c1 = 1 - Math.pow(o.beta1, n)
  const c2 = 1 - Math.pow(o.beta2, n)
  tf.tidy(() => {
    o.variables.forEach((w, i) => {
      const g = scale === 1 ? grads[i]! : tf.mul(grads[i]!, scale)
      const m = tf.add(tf.mul(o.m[i]!, o.beta1), tf.mul(g, 1 - o.beta1))
      const v = tf.add(tf.mul(o.v[i]!, o.beta2), tf.mul(tf.square(g), 1 - o.beta2))
      o.m[i]!.assign(m)
      o.v[i]!.assign(v)
      const update = tf.div(tf.div(m, c1), tf.add(tf.sqrt(tf.div(v, c2)), o.epsilon))
      w.assign(tf.sub(w, tf.mul(update, options.learningRate)))
    })
  })
  return gradNorm
}

/**
 * Differentiates `f().loss` with respect to the optimizer's variables, clips the gradients to
 * `maxNorm` (global norm; `Infinity` disables it), and takes one Adam step at `learningRate`
 * ({@link gradients} then {@link apply}). `f` may return auxiliary scalars (metrics); they are
 * read and disposed. No tensor survives.
 *
 * @category combinators
 * @since 0.1.0
 */
export const step = (
  optimizer: Optimizer,
  options: { readonly learningRate: number; readonly maxNorm: number },
  f: () => { readonly loss: tf.Scalar; readonly aux?: Readonly<Record<string, tf.Scalar>> }
): StepResult => {
  const { grads, loss, aux } = gradients(optimizer.variables, f)
  try {
    return { loss, gradNorm: apply(optimizer, options, grads), aux }
  } finally {
    tf.dispose(grads)
  }
}

/**
 * The optimizer's state: step count and moments, as host arrays in variable order.
 *
 * @category models
 * @since 0.1.0
 */
export interface State {
  readonly steps: number
  readonly m: ReadonlyArray<Float32Array>
  readonly v: ReadonlyArray<Float32Array>
}

/**
 * Reads the state (for checkpoints).
 *
 * @category destructors
 * @since 0.1.0
 */
export const state = (optimizer: Optimizer): State => {
  const o = optimizer as Internal
  return { steps: o.count.n, m: o.m.map((x) => new Float32Array(x.dataSync())), v: o.v.map((x) => new Float32Array(x.dataSync())) }
}

/**
 * Restores a state read by {@link state} from an optimizer over the same variables.
 *
 * @category combinators
 * @since 0.1.0
 */
export const restore = (optimizer: Optimizer, saved: State): void => {
  const o = optimizer as Internal
  if (saved.m.length !== o.m.length || saved.v.length !== o.v.length)
    throw new Error(`Optimizer.restore: ${saved.m.length} moments for ${o.m.length} variables`)
  const load = (x: tf.Variable, data: Float32Array): void => {
    const t = tf.tensor(data, x.shape)
    x.assign(t)
    t.dispose()
  }
  o.m.forEach((x, i) => load(x, saved.m[i]!))
  o.v.forEach((x, i) => load(x, saved.v[i]!))
  o.count.n = saved.steps
}
