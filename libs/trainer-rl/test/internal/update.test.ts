import { Rng, Trajectory } from '@mtrl/core'
import { Critic, ModelConfig, Policy, Scoring } from '@mtrl/policy'
import { Batch } from '@mtrl/rollout'
import { Optimizer } from '@mtrl/optim'
import { TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import { beforeAll, describe, expect, it } from 'vitest'
import { make, override, resolve, type Config, type Overrides } from '../../src/Config.js'
import * as forward from '../../src/internal/forward.js'
import { update } from '../../src/internal/update.js'

beforeAll(() => TestBackend.use('cpu'))

const turn: Trajectory.Turn = { action: 'a', reward: 0, valid: true, parsed: true, score: 0, maxScore: 1 }

// position:  0 1 2 | 3 4 | 5 6 | 7 8
// token:     1 2 3 | 4 5 | 6 7 | 8 9
// kind:      prompt | action (turn 0) | observation | action (turn 1)
const trajectory: Trajectory.Trajectory = {
  env: 'fixed',
  seed: 0,
  groupId: 'fixed:0',
  segments: [
    { kind: 'prompt', turn: 0, tokens: Int32Array.of(1, 2, 3) },
    { kind: 'action', turn: 0, tokens: Int32Array.of(4, 5) },
    { kind: 'observation', turn: 0, tokens: Int32Array.of(6, 7) },
    { kind: 'action', turn: 1, tokens: Int32Array.of(8, 9) }
  ],
  turns: [turn, turn],
  turnRewards: [0, 1],
  won: true,
  truncated: false
}
const ACTIONS = [3, 4, 7, 8]
const T = 9
const temperature = 0.7

const setup = (overrides: Overrides = {}) => {
  const policy = Policy.make(ModelConfig.make({ vocab: 16, dModel: 16, layers: 1, heads: 2, maxLen: 32 }), 3)
  const batch = Batch.make({ pad: 0 })([trajectory])
  const config: Config = override(overrides)(make({ rollout: { temperature }, update: { epochs: 1, minibatches: 1 } }))
  const optimizer = Optimizer.make(Policy.trainableVariables(policy))
  const context = (lr: number, lossKind: 'ppo' | 'policyGradient' = 'ppo') => ({
    config: resolve(override({ loss: { policyLoss: lossKind } })(config)),
    policy,
    critic: undefined,
    policyOptimizer: optimizer,
    criticOptimizer: undefined,
    policyLr: lr,
    updatePolicy: true,
    klCoef: 0,
    shuffle: Rng.make(0)
  })
  return { policy, batch, context, dispose: () => (optimizer.dispose(), policy.dispose()) }
}

/** Advantages that differ at every action position, and garbage everywhere else (which the mask must drop). */
const advantages = (): Float32Array => {
  const a = new Float32Array(T).fill(100)
  ACTIONS.forEach((t, k) => (a[t] = [1, 2, 4, 8][k]!))
  return a
}

describe('update on a fixed batch', () => {
  it('the batch marks exactly the action tokens', () => {
    const { batch, dispose } = setup()
    expect(Array.from(batch.actionMask).flatMap((m, t) => (m === 1 ? [t] : []))).toEqual(ACTIONS)
    dispose()
  })

  it("at ratio 1 both policy losses are -mean(A) over the action tokens only; entropy is those tokens' mean entropy; clip fraction and approx-KL are 0", () => {
    for (const [lossKind, aggregation, expected] of [
      ['ppo', 'token-mean', -(1 + 2 + 4 + 8) / 4],
      ['policyGradient', 'token-mean', -(1 + 2 + 4 + 8) / 4],
      ['ppo', 'seq-mean-token-sum', -(1 + 2 + 4 + 8)],
      ['ppo', 'seq-mean-token-sum-norm', -(1 + 2 + 4 + 8) / T]
    ] as const) {
      const { policy, batch, context, dispose } = setup({ loss: { aggregation } })
      const oldLogprobs = forward.logprobs(policy, batch, temperature)
      const entropy = tf.tidy(() => Scoring.tokenLogprobs(policy)(tf.tensor2d(batch.ids, [1, T], 'int32'), temperature).entropy.dataSync())
      // lr 0: the loss is read at the weights that produced oldLogprobs
      const m = update(context(0, lossKind), { batch, oldLogprobs, advantages: advantages(), returns: new Float32Array(T) })
      expect(m.policyLoss, `${lossKind} ${aggregation}`).toBeCloseTo(expected, 5)
      expect(m.entropy).toBeCloseTo(ACTIONS.reduce((s, t) => s + entropy[t]!, 0) / ACTIONS.length, 5)
      expect(m.clipFraction).toBe(0)
      expect(Math.abs(m.approxKl)).toBeLessThan(1e-6)
      dispose()
    }
  })

  it('the behaviour log-probs are read at the right positions: shifting them by one token moves the loss', () => {
    const { policy, batch, context, dispose } = setup()
    const oldLogprobs = forward.logprobs(policy, batch, temperature)
    const shifted = new Float32Array(T)
    shifted.set(oldLogprobs.subarray(0, T - 1), 1)
    const aligned = update(context(0), { batch, oldLogprobs, advantages: advantages(), returns: new Float32Array(T) })
    const misaligned = update(context(0), { batch, oldLogprobs: shifted, advantages: advantages(), returns: new Float32Array(T) })
    expect(aligned.approxKl).toBeCloseTo(0, 6)
    expect(Math.abs(misaligned.approxKl)).toBeGreaterThan(1e-3)
    dispose()
  })

  it('a step raises the log-probs of action tokens with positive advantage and lowers those with negative advantage', () => {
    const { policy, batch, context, dispose } = setup({ update: { maxGradNorm: 100 } })
    const before = forward.logprobs(policy, batch, temperature)
    const a = new Float32Array(T)
    a[3] = -1
    a[4] = -1
    a[7] = 1
    a[8] = 1
    for (let i = 0; i < 3; i++) update(context(0.02), { batch, oldLogprobs: before, advantages: a, returns: new Float32Array(T) })
    const after = forward.logprobs(policy, batch, temperature)
    expect(after[3]!).toBeLessThan(before[3]!)
    expect(after[4]!).toBeLessThan(before[4]!)
    expect(after[7]!).toBeGreaterThan(before[7]!)
    expect(after[8]!).toBeGreaterThan(before[8]!)
    dispose()
  })

  it('the context loss is -mean log-prob over the prompt and observation tokens after the first (no action token, no padding); NaN when off', () => {
    const CONTEXT = [1, 2, 5, 6]
    const { policy, batch, context, dispose } = setup({ loss: { contextCoef: 0.5 } })
    const oldLogprobs = forward.logprobs(policy, batch, temperature)
    const m = update(context(0), { batch, oldLogprobs, advantages: advantages(), returns: new Float32Array(T) })
    expect(m.contextLoss).toBeCloseTo(-CONTEXT.reduce((s, t) => s + oldLogprobs[t]!, 0) / CONTEXT.length, 5)
    expect(m.policyLoss).toBeCloseTo(-(1 + 2 + 4 + 8) / 4, 5)
    dispose()
    const off = setup()
    expect(
      update(off.context(0), {
        batch: off.batch,
        oldLogprobs: forward.logprobs(off.policy, off.batch, temperature),
        advantages: advantages(),
        returns: new Float32Array(T)
      }).contextLoss
    ).toBeNaN()
    off.dispose()
  })

  it('with zero advantages, steps with a context loss raise the log-probs of the context tokens, and without one change nothing', () => {
    const CONTEXT = [1, 2, 5, 6]
    const meanAt = (lp: Float32Array): number => CONTEXT.reduce((s, t) => s + lp[t]!, 0) / CONTEXT.length
    for (const contextCoef of [0, 1]) {
      const { policy, batch, context, dispose } = setup({ loss: { contextCoef }, update: { maxGradNorm: 100 } })
      const before = forward.logprobs(policy, batch, temperature)
      for (let i = 0; i < 3; i++) update(context(0.02), { batch, oldLogprobs: before, advantages: new Float32Array(T), returns: new Float32Array(T) })
      const after = forward.logprobs(policy, batch, temperature)
      if (contextCoef === 0) expect(meanAt(after)).toBeCloseTo(meanAt(before), 6)
      else expect(meanAt(after)).toBeGreaterThan(meanAt(before) + 0.01)
      dispose()
    }
  })

  it('padding costs nothing and changes nothing: minibatches and scoring cut to their longest row give the same loss, step and log-probs as the full width', () => {
    // a second, shorter episode (5 tokens): prompt and one action
    const short: Trajectory.Trajectory = {
      ...trajectory,
      seed: 1,
      groupId: 'fixed:1',
      segments: trajectory.segments.slice(0, 2),
      turns: [turn],
      turnRewards: [1]
    }
    const run = (time: number) => {
      const { policy, context, dispose } = setup({ update: { maxGradNorm: 100 } })
      // the longer row first: scoring sorts rows by length and must write each back in place
      const batch = Batch.make({ pad: 0, time })([trajectory, short])
      const oldLogprobs = forward.logprobs(policy, batch, temperature)
      const a = new Float32Array(2 * time)
      ACTIONS.forEach((t, k) => (a[t] = [1, -2, 4, -8][k]!))
      ;[3, 4].forEach((t) => (a[time + t] = 1))
      const m = update(context(0.02), { batch, oldLogprobs, advantages: a, returns: new Float32Array(2 * time) })
      const after = forward.logprobs(policy, batch, temperature)
      const rows = [oldLogprobs.subarray(0, T), oldLogprobs.subarray(time, time + 5), after.subarray(0, T), after.subarray(time, time + 5)].map((r) =>
        Array.from(r)
      )
      dispose()
      return { m, rows, width: batch.time }
    }
    const tight = run(T)
    const wide = run(T + 7)
    expect(wide.width).toBe(T + 7)
    // each row scored alone gives the same log-probs (rows are not mixed up by the length sort)
    const alone = setup()
    const single = forward.logprobs(alone.policy, Batch.make({ pad: 0 })([short]), temperature)
    const pair = forward.logprobs(alone.policy, Batch.make({ pad: 0 })([trajectory, short]), temperature)
    Array.from(single).forEach((x, t) => expect(pair[T + t]!).toBeCloseTo(x, 5))
    alone.dispose()
    expect(wide.m.policyLoss).toBeCloseTo(tight.m.policyLoss, 5)
    expect(wide.m.entropy).toBeCloseTo(tight.m.entropy, 5)
    expect(wide.m.policyGradNorm).toBeCloseTo(tight.m.policyGradNorm, 4)
    wide.rows.forEach((row, i) => row.forEach((x, t) => expect(x, `row ${i} token ${t}`).toBeCloseTo(tight.rows[i]![t]!, 5)))
  })

  it('recompute (gradient checkpointing) takes the same step, alone and with a critic sharing the trunk, running the forward pass again', async () => {
    for (const withCritic of [false, true]) {
      const step = (recompute: boolean) => {
        const { policy, batch, context, dispose } = setup({ update: { recompute }, critic: { valueClip: null, valueCoef: 0.5 } })
        const critic = withCritic ? Critic.make(policy, { shareTrunk: true }, 9) : undefined
        const criticOptimizer = critic === undefined ? undefined : Optimizer.make(Critic.trainableVariables(critic))
        const oldLogprobs = forward.logprobs(policy, batch, temperature)
        const returns = new Float32Array(T).fill(0.5)
        const m = update(
          { ...context(0.02), critic, criticOptimizer },
          { batch, oldLogprobs, advantages: advantages(), returns, oldValues: new Float32Array(T) }
        )
        const w = Object.fromEntries(Object.entries(policy.variables).map(([k, v]) => [k, Array.from(v.dataSync())]))
        criticOptimizer?.dispose()
        critic?.dispose()
        dispose()
        return { m, w }
      }
      const [a, b] = [step(false), step(true)]
      // the layers run again in the backward pass: more kernels (the setting reaches the scoring)
      const kernels = async (recompute: boolean): Promise<number> => (await tf.profile(() => void step(recompute))).kernels.length
      expect(await kernels(true)).toBeGreaterThan(await kernels(false))
      expect(b.m.policyLoss).toBeCloseTo(a.m.policyLoss, 6)
      expect(b.m.policyGradNorm).toBeCloseTo(a.m.policyGradNorm, 5)
      for (const [name, w] of Object.entries(a.w)) w.forEach((x, i) => expect(b.w[name]![i]!, name).toBeCloseTo(x, 6))
    }
  })

  it('a critic sharing the trunk: one pass gives the policy step of a policy-only update and the head step of a critic-only update', () => {
    const returns = new Float32Array(T).map((_, t) => (t >= 7 ? 1 : 0.5))
    const run = (mode: 'both' | 'policy' | 'critic', valueCoef = 0) => {
      const { policy, batch, context, dispose } = setup({ critic: { valueClip: null, valueCoef } })
      const critic = Critic.make(policy, { shareTrunk: true }, 9)
      const criticOptimizer = Optimizer.make(Critic.trainableVariables(critic))
      const oldLogprobs = forward.logprobs(policy, batch, temperature)
      const oldValues = new Float32Array(T)
      const base = context(0.02)
      const m = update(
        {
          ...base,
          critic: mode === 'policy' ? undefined : critic,
          criticOptimizer: mode === 'policy' ? undefined : criticOptimizer,
          updatePolicy: mode !== 'critic'
        },
        { batch, oldLogprobs, advantages: advantages(), returns, oldValues }
      )
      const weights = (vs: Record<string, tf.Variable>) => Object.fromEntries(Object.entries(vs).map(([k, v]) => [k, Array.from(v.dataSync())]))
      const out = { m, policy: weights(policy.variables), head: weights(critic.variables) }
      criticOptimizer.dispose()
      critic.dispose()
      dispose()
      return out
    }
    const both = run('both')
    const policyOnly = run('policy')
    const criticOnly = run('critic')
    expect(both.m.steps).toBe(1)
    expect(both.m.policyLoss).toBeCloseTo(policyOnly.m.policyLoss, 6)
    expect(both.m.policyGradNorm).toBeCloseTo(policyOnly.m.policyGradNorm, 5)
    expect(both.m.valueLoss).toBeCloseTo(criticOnly.m.valueLoss, 6)
    expect(both.m.criticGradNorm).toBeCloseTo(criticOnly.m.criticGradNorm, 5)
    expect(both.m.valueLoss).toBeGreaterThan(0)
    for (const [name, w] of Object.entries(both.policy)) w.forEach((x, i) => expect(x, name).toBeCloseTo(policyOnly.policy[name]![i]!, 6))
    for (const [name, w] of Object.entries(both.head)) w.forEach((x, i) => expect(x, name).toBeCloseTo(criticOnly.head[name]![i]!, 6))
    // and the head did move
    const fresh = run('policy').head
    expect(Object.entries(both.head).some(([name, w]) => w.some((x, i) => Math.abs(x - fresh[name]![i]!) > 1e-6))).toBe(true)
    // with valueCoef the value loss also trains the trunk: the policy's step is no longer the policy-only one
    const joint = run('both', 0.5)
    expect(joint.m.valueLoss).toBeCloseTo(both.m.valueLoss, 6)
    const moved = (name: string) => joint.policy[name]!.some((x, i) => Math.abs(x - policyOnly.policy[name]![i]!) > 1e-6)
    expect(moved('model.layers.0.self_attn.q_proj.weight')).toBe(true)
    expect(moved('lm_head.weight')).toBe(false)
  })
})

describe('update on constrained tokens (allowed-token masks from constrained decoding)', () => {
  const maskOf = (ids: ReadonlyArray<number>): Int32Array => Int32Array.of(ids.reduce((m, id) => m | (1 << id), 0))
  const allowed = [
    [8, 11, 12],
    [9, 3]
  ]
  /** The sampler's log-probs: unmasked at the turn-0 action, masked at the turn-1 action (log p(y) - log sum over the allowed set, by hand). */
  const samplerLogprobs = (policy: Policy.Policy): Float32Array => {
    const full = (t: number): number[] =>
      Array.from({ length: 16 }, (_v, v) => {
        const ids = Trajectory.tokens(trajectory).slice()
        ids[t] = v
        return forward.logprobs(policy, Batch.make({ pad: 0 })([{ ...trajectory, segments: [{ kind: 'prompt', turn: 0, tokens: ids }] }]), temperature)[t]!
      })
    const out = forward.logprobs(policy, Batch.make({ pad: 0 })([trajectory]), temperature)
    ;[7, 8].forEach((t, k) => {
      const lp = full(t)
      out[t] = lp[trajectory.segments[3]!.tokens[k]!]! - Math.log(allowed[k]!.reduce((s, v) => s + Math.exp(lp[v]!), 0))
    })
    return out
  }

  it("scores them under the recorded masks: the first minibatch's ratio is exactly 1 against the sampler's masked log-probs (the token-exact path), and not without the masks", () => {
    const { policy, context, dispose } = setup()
    const sampled = samplerLogprobs(policy)
    const constrained: Trajectory.Trajectory = {
      ...trajectory,
      segments: [
        ...trajectory.segments.slice(0, 2).map((s) => (s.kind === 'action' ? { ...s, logprobs: sampled.slice(3, 5) } : s)),
        trajectory.segments[2]!,
        { ...trajectory.segments[3]!, logprobs: sampled.slice(7, 9), masks: allowed.map(maskOf) }
      ]
    }
    const batch = Batch.make({ pad: 0 })([constrained])
    expect(Array.from(batch.samplerLogprobs)).toEqual(Array.from(sampled).map((x, t) => (ACTIONS.includes(t) ? x : 0)))
    // the masked log-probs differ from the plain ones
    const plain = forward.logprobs(policy, Batch.make({ pad: 0 })([trajectory]), temperature)
    expect(Math.min(...[7, 8].map((t) => Math.abs(plain[t]! - sampled[t]!)))).toBeGreaterThan(0.05)
    // the trainer's own recomputation (the non-exact path's old log-probs) matches the sampler's
    const recomputed = forward.logprobs(policy, batch, temperature)
    ACTIONS.forEach((t) => expect(recomputed[t]).toBeCloseTo(sampled[t]!, 5))
    const before = tf.memory().numTensors
    const input = { batch, oldLogprobs: batch.samplerLogprobs, advantages: advantages(), returns: new Float32Array(T) }
    const m = update(context(0), input)
    expect(tf.memory().numTensors).toBe(before)
    expect(m.samplerGap).toBeLessThan(1e-5)
    expect(Math.abs(m.approxKl)).toBeLessThan(1e-6)
    expect(m.clipFraction).toBe(0)
    expect(m.policyLoss).toBeCloseTo(-(1 + 2 + 4 + 8) / 4, 5)
    // without the masks the new log-probs are the unmasked ones: the ratio on constrained tokens is off
    const { allowed: _dropped, ...unmasked } = batch
    const off = update(context(0), { ...input, batch: unmasked })
    expect(off.samplerGap).toBeGreaterThan(0.02)
    expect(Math.abs(off.approxKl)).toBeGreaterThan(1e-3)
    dispose()
  })
})
