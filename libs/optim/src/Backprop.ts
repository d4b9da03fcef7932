/**
 * Reverse-mode gradients that free memory as the backward pass goes, as PyTorch's autograd does.
 *
 * `tf.variableGrads` (tfjs 4.x's `engine.gradients`) keeps every saved activation and the
 * gradient of every intermediate tensor until the whole backward pass has ended, so its peak is
 * the forward pass's activations plus a gradient for each of them. Here, once a tape node has
 * been walked, its saved tensors (only its own gradient reads them) and the gradients of its
 * outputs (only its own gradient reads them: every consumer of an output comes later on the tape,
 * so it was walked before) are disposed; the saved tensors of nodes that lead to no trained
 * variable are disposed before the walk starts. The gradients are the same tensors computed in
 * the same order as the engine's, so they are bit for bit equal (test/Backprop.test.ts).
 *
 * At Qwen3-0.6B's shape with LoRA (2 x 256 tokens, tensorflow backend) an SFT forward and
 * backward pass without gradient checkpointing peaks at 15.8 GiB with the engine's walk and at
 * 8.6 GiB with this one (decision 0024).
 *
 * It reads the engine's tape (`state.activeTape`, the node's `inputs`, `outputs`, `saved`,
 * `gradient`), which tfjs does not export: the test fails if a tfjs update changes it. Inside
 * another gradient computation (higher-order gradients) it leaves the work to the engine.
 *
 * @since 0.1.0
 */
import * as tf from '@tensorflow/tfjs'

interface TapeNode {
  readonly id: number
  readonly inputs: Readonly<Record<string, tf.Tensor>>
  readonly outputs: ReadonlyArray<tf.Tensor>
  readonly saved: ReadonlyArray<tf.Tensor>
  readonly gradient?: (dys: ReadonlyArray<tf.Tensor | null>) => Readonly<Record<string, () => tf.Tensor>>
}

interface Engine {
  readonly state: { activeTape: TapeNode[] | null; readonly gradientDepth: number }
  startTape(): void
  endTape(): void
  scopedRun<T>(start: () => void, end: () => void, f: () => T): T
  tidy<T extends tf.TensorContainer>(name: string, f: () => T): T
}

/**
 * The nodes on a path from `xs` to `y`, in tape order, each with only the inputs that depend on
 * `xs` (the engine's own filter, `getFilteredNodesXToY`).
 */
const pathNodes = (tape: ReadonlyArray<TapeNode>, xs: ReadonlyArray<tf.Tensor>, y: tf.Tensor): TapeNode[] => {
  const fromX = new Set(xs.map((x) => x.id))
  const nodesFromX = new Set<number>()
  for (const node of tape)
    if (Object.values(node.inputs).some((t) => fromX.has(t.id))) {
      node.outputs.forEach((o) => fromX.add(o.id))
      nodesFromX.add(node.id)
    }
  const toY = new Set([y.id])
  const nodesToY = new Set<number>()
  for (let i = tape.length - 1; i >= 0; i--) {
    const node = tape[i]!
    if (node.outputs.some((o) => toY.has(o.id))) {
      Object.values(node.inputs).forEach((t) => toY.add(t.id))
      nodesToY.add(node.id)
    }
  }
  return tape
    .filter((node) => nodesFromX.has(node.id) && nodesToY.has(node.id))
    .map((node) => ({ ...node, inputs: Object.fromEntries(Object.entries(node.inputs).filter(([, t]) => fromX.has(t.id))) }))
}

/** Gradients by tensor id, counting how many ids share one tensor (a gradient passed through unchanged). */
const gradientStore = () => {
  const byId = new Map<number, tf.Tensor>()
  const users = new Map<tf.Tensor, number>()
  const set = (id: number, t: tf.Tensor): void => {
    byId.set(id, t)
    users.set(t, (users.get(t) ?? 0) + 1)
  }
  /** Forgets `id`'s gradient, disposing it when no other id holds it. */
  const drop = (id: number): void => {
    const t = byId.get(id)
    if (t === undefined) return
    byId.delete(id)
    const left = users.get(t)! - 1
    if (left > 0) users.set(t, left)
    else {
      users.delete(t)
      t.dispose()
    }
  }
  const accumulate = (id: number, dx: tf.Tensor): void => {
    const current = byId.get(id)
    if (current === undefined) return set(id, dx)
    const sum = tf.add(current, dx)
    drop(id)
    if (!users.has(dx)) dx.dispose()
    set(id, sum)
  }
  return { get: (id: number) => byId.get(id), holds: (t: tf.Tensor) => users.has(t), drop, accumulate, set }
}

/** Walks `nodes` backward from `y`'s gradient (ones), freeing as it goes; the gradients of `xs` (undefined where none reaches). */
const walk = (nodes: ReadonlyArray<TapeNode>, xs: ReadonlyArray<tf.Tensor>, y: tf.Tensor): Array<tf.Tensor | undefined> => {
  const grads = gradientStore()
  const kept = new Set(xs.map((x) => x.id))
  grads.set(y.id, tf.onesLike(y))
  for (let i = nodes.length - 1; i >= 0; i--) {
    const node = nodes[i]!
    if (node.gradient === undefined) throw new Error(`Cannot compute gradient: gradient function not found for node ${node.id}.`)
    const inputGradients = node.gradient(node.outputs.map((o) => grads.get(o.id) ?? null))
    for (const [name, x] of Object.entries(node.inputs)) {
      const make = inputGradients[name]
      if (make === undefined) throw new Error(`Cannot backprop through input ${name} of node ${node.id}.`)
      grads.accumulate(x.id, tf.tidy(make))
    }
    for (const o of node.outputs) if (!kept.has(o.id)) grads.drop(o.id)
    for (const s of node.saved) if (!grads.holds(s)) s.dispose()
  }
  return xs.map((x) => grads.get(x.id))
}

/**
 * The gradients of the scalar `f()` in the trainable `variables`, as `tf.variableGrads` gives
 * them (by name; a variable the loss does not reach has none), freeing each activation and
 * intermediate gradient as soon as the backward pass is past it. The caller owns `value` and
 * the gradients.
 *
 * @example
 * import * as tf from '@tensorflow/tfjs'
 * import { Backprop } from '@mtrl/optim'
 * const w = tf.variable(tf.tensor1d([1, 2]))
 * const { value, grads } = Backprop.variableGrads(() => tf.sum(tf.square(w)) as tf.Scalar, [w])
 * // grads[w.name] is [2, 4]
 *
 * @category combinators
 * @since 0.1.0
 */
export const variableGrads = (f: () => tf.Scalar, variables: ReadonlyArray<tf.Variable>): { readonly value: tf.Scalar; readonly grads: tf.NamedTensorMap } => {
  const engine = tf.engine() as unknown as Engine
  const trained = variables.filter((v) => v.trainable)
  if (trained.length === 0) throw new Error(`Backprop.variableGrads: none of the ${variables.length} variables is trainable`)
  if (engine.state.gradientDepth > 0) return tf.variableGrads(f, trained)
  const value = engine.scopedRun(
    () => engine.startTape(),
    () => engine.endTape(),
    () => engine.tidy('forward', f)
  )
  const tape = engine.state.activeTape ?? []
  try {
    if (value.rank !== 0) throw new Error(`Backprop.variableGrads: f must return a scalar, it returned a rank-${value.rank} tensor`)
    const nodes = pathNodes(tape, trained, value)
    if (nodes.length === 0) throw new Error('Backprop.variableGrads: the loss depends on none of the variables')
    const onPath = new Set(nodes.map((node) => node.id))
    for (const node of tape) if (!onPath.has(node.id)) node.saved.forEach((s) => s.dispose())
    const grads = engine.tidy('backward', () => walk(nodes, trained, value))
    return { value, grads: Object.fromEntries(trained.flatMap((v, i) => (grads[i] === undefined ? [] : [[v.name, grads[i]!]]))) }
  } catch (error) {
    value.dispose()
    throw error
  } finally {
    tape.forEach((node) => node.saved.forEach((s) => s.dispose()))
    engine.state.activeTape = null
  }
}
