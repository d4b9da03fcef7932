/**
 * The webgpu backend against the cpu backend's reference kernels, on the same weights: what
 * training and sampling compute (logits and log-probs, the policy-loss gradients, an Adam step,
 * KV-cached decoding, an SFT step of the default model's shape, a GRPO iteration). Runs where a
 * WebGPU adapter exists (a GPU, or SwiftShader's Vulkan in CI): `[needs webgpu]` elsewhere.
 * Shapes are small: a software adapter runs each kernel on 2 CPU cores.
 */
import { Grpo } from '@mtrl/advantages'
import { Rng, type Trajectory } from '@mtrl/core'
import { Optimizer } from '@mtrl/optim'
import { ChatTemplate, ModelConfig, Policy, Sampler, Scoring } from '@mtrl/policy'
import { expectNoLeak, Services, TestBackend, Toy } from '@mtrl/testing'
import { Config, Kl, Ppo, Trainer } from '@mtrl/trainer-rl'
import { ExpertData, Sft } from '@mtrl/trainer-sft'
import * as tf from '@tensorflow/tfjs'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, describe, expect, it } from 'vitest'

const gpu = Services.available('webgpu')
const tag = Services.tag('webgpu')
const tokenizer = Toy.tokenizer()
const template = ChatTemplate.make(tokenizer)

afterAll(() => TestBackend.use('cpu'))

/** `f` on cpu, then on webgpu from the same seeds (which must free every tensor it made). */
const onBoth = async <A>(f: () => A | Promise<A>): Promise<{ readonly cpu: A; readonly gpu: A }> => {
  await TestBackend.use('cpu')
  const cpu = await f()
  await TestBackend.use('webgpu')
  const onGpu = await expectNoLeak(f)
  await TestBackend.use('cpu')
  return { cpu, gpu: onGpu }
}

/** The largest difference relative to the reference's largest magnitude (at least `floor`). */
const relativeError = (reference: ArrayLike<number>, other: ArrayLike<number>, floor = 1e-3): number => {
  expect(other.length).toBe(reference.length)
  let scale = floor
  let worst = 0
  for (let i = 0; i < reference.length; i++) {
    scale = Math.max(scale, Math.abs(reference[i]!))
    worst = Math.max(worst, Math.abs(reference[i]! - other[i]!))
  }
  return worst / scale
}

const small = ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 32, layers: 2, heads: 4, kvHeads: 2, ffn: 48, maxLen: 32 })
/** recipes/default.json's model (d 128, 2 layers, 8 heads, previous-token embedding, canon span 3) on the toy vocabulary. */
const defaultShape = ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 128, layers: 2, heads: 8, maxLen: 64, prevTokenEmbedding: true, canonSpan: 3 })

const ids = (): tf.Tensor2D =>
  tf.tensor2d(
    [
      [1, 5, 3, 2, 7, 3, 4, 6],
      [4, 4, 2, 1, 6, 2, 5, 7]
    ],
    [2, 8],
    'int32'
  )
const mask = (): tf.Tensor2D =>
  tf.tensor2d([
    [0, 1, 1, 1, 1, 1, 0, 0],
    [0, 1, 1, 1, 1, 1, 1, 1]
  ])

const read = (t: tf.Tensor): Float32Array => new Float32Array(t.dataSync())

/**
 * The largest difference between weights after a step, as a fraction of the learning rate:
 * Adam moves a weight by about the learning rate whatever its gradient's size, so where a
 * gradient is near 0 float32 rounding moves it by a visible fraction of a step; a wrong kernel
 * moves weights by whole steps.
 */
const stepError = (reference: ReadonlyArray<Float32Array>, other: ReadonlyArray<Float32Array>, learningRate: number): number =>
  Math.max(...reference.map((w, i) => Math.max(...Array.from(w, (v, j) => Math.abs(v - other[i]![j]!))))) / learningRate

// a software adapter on a busy 2-core machine took 45 s for the SFT step: more than the suite's 60 s default leaves
describe.runIf(gpu)(`webgpu vs cpu parity ${tag}`, { timeout: 300_000 }, () => {
  it('logits and log-probs (with entropy, at temperature 0.9)', async () => {
    const { cpu, gpu: onGpu } = await onBoth(() => {
      const policy = Policy.make(small, 4)
      const x = ids()
      const out = tf.tidy(() => {
        const { logprobs, entropy } = Scoring.tokenLogprobs(policy)(x, 0.9)
        return { logits: read(Policy.logits(policy)(x)), logprobs: read(logprobs), entropy: read(entropy) }
      })
      x.dispose()
      policy.dispose()
      return out
    })
    expect(relativeError(cpu.logits, onGpu.logits)).toBeLessThan(1e-4)
    expect(relativeError(cpu.logprobs, onGpu.logprobs)).toBeLessThan(1e-4)
    expect(relativeError(cpu.entropy, onGpu.entropy)).toBeLessThan(1e-4)
  })

  it('gradients of the clipped policy loss (PPO/GRPO) with GRPO advantages, and one Adam step', async () => {
    const { cpu, gpu: onGpu } = await onBoth(() => {
      const policy = Policy.make(small, 5)
      const vars = Policy.trainableVariables(policy)
      const x = ids()
      const m = mask()
      // GRPO: one group of two rollouts, outcomes 1 and 0
      const tokenRewards = new Float32Array(16)
      tokenRewards[5] = 1 // the first rollout wins (its last action token), the second does not
      const grpo = Grpo.estimate(Grpo.defaultOptions)({ batch: 2, time: 8, tokenRewards, actionMask: read(m), groupIds: ['g', 'g'] })
      const advantages = tf.tensor2d(grpo.advantages, [2, 8])
      const old = tf.tidy(() => tf.add(Scoring.tokenLogprobs(policy, { entropy: false })(x).logprobs, tf.mul(tf.sin(tf.range(0, 16).reshape([2, 8])), 0.3)))
      const lossOf = () => {
        const logprobs = Scoring.tokenLogprobs(policy, { entropy: false })(x).logprobs
        return Ppo.loss(Ppo.defaultOptions)({ logprobs, oldLogprobs: old, advantages, mask: m }).loss as tf.Scalar
      }
      const { value, grads } = tf.variableGrads(lossOf, vars)
      const out = { loss: value.dataSync()[0]!, grads: vars.map((v) => read(grads[v.name]!)) }
      tf.dispose([value, ...Object.values(grads)])
      const adam = Optimizer.make(vars)
      const step = Optimizer.step(adam, { learningRate: 1e-2, maxNorm: 1 }, () => ({ loss: lossOf() }))
      const after = { weights: vars.map(read), m: Optimizer.state(adam).m, gradNorm: step.gradNorm }
      adam.dispose()
      tf.dispose([x, m, advantages, old])
      policy.dispose()
      return { ...out, ...after }
    })
    expect(Math.abs(onGpu.loss - cpu.loss)).toBeLessThan(1e-4 * Math.max(1, Math.abs(cpu.loss)))
    cpu.grads.forEach((g, i) => expect(relativeError(g, onGpu.grads[i]!), `gradient ${i}`).toBeLessThan(1e-3))
    expect(onGpu.gradNorm).toBeCloseTo(cpu.gradNorm, 4)
    expect(stepError(cpu.weights, onGpu.weights, 1e-2)).toBeLessThan(0.05)
    cpu.m.forEach((w, i) => expect(relativeError(w, onGpu.m[i]!), `first moment ${i}`).toBeLessThan(1e-3))
  })

  it('KV-cached decoding equals the full forward pass and the cpu backend', async () => {
    const { cpu, gpu: onGpu } = await onBoth(() => {
      const policy = Policy.make(small, 6)
      const session = Sampler.make(policy, { slots: 2, maxLen: 32 })
      session.append([0, 1], [Int32Array.of(1, 2, 3), Int32Array.of(7)])
      const gens = session.generate([0, 1], { maxNewTokens: 4, temperature: 0, stopTokens: [], rng: Rng.make(0) })
      session.dispose()
      // the full forward pass over prompt + generation scores the generated tokens
      const prompts = [[1, 2, 3], [7]]
      const full = gens.map((g, r) => {
        const seq = [...prompts[r]!, ...Array.from(g.tokens)]
        const lp = tf.tidy(() => read(Scoring.tokenLogprobs(policy, { entropy: false })(tf.tensor2d([seq], [1, seq.length], 'int32')).logprobs))
        return Array.from(lp.slice(prompts[r]!.length))
      })
      policy.dispose()
      return { tokens: gens.map((g) => Array.from(g.tokens)), logprobs: gens.map((g) => Array.from(g.logprobs)), full }
    })
    expect(onGpu.tokens).toEqual(cpu.tokens)
    onGpu.logprobs.forEach((row, r) => {
      expect(relativeError(cpu.logprobs[r]!, row, 1)).toBeLessThan(1e-4)
      expect(relativeError(onGpu.full[r]!, row, 1)).toBeLessThan(1e-4)
    })
  })

  it("an SFT step of the default model's shape on expert demonstrations", async () => {
    const demos: Trajectory.Trajectory[] = []
    for (let seed = 0; seed < 2; seed++) {
      const replayed = await ExpertData.replay({ systemPrompt: '', actionFormat: 'plain' }, { template, tokenizer })(Toy.corridor(), seed, [
        'left',
        'forward',
        'forward'
      ])()
      if (E.isLeft(replayed)) throw new Error(replayed.left._tag)
      demos.push(replayed.right)
    }
    const { cpu, gpu: onGpu } = await onBoth(() => {
      const policy = Policy.make(defaultShape, 7)
      const result = Sft.train({ ...Sft.defaultOptions, epochs: 1, batchSize: 2, learningRate: 3e-3, warmupSteps: 0, heldOutFraction: 0, contextWeight: 0.3 })(
        policy
      )(demos)
      const weights = Policy.trainableVariables(policy).map(read)
      policy.dispose()
      return { steps: result.steps, weights, lr: result.steps[0]!['optim/lr'] }
    })
    expect(onGpu.steps.length).toBe(1)
    expect(onGpu.steps[0]!['loss/sft']).toBeCloseTo(cpu.steps[0]!['loss/sft'], 4)
    expect(onGpu.steps[0]!['loss/context']).toBeCloseTo(cpu.steps[0]!['loss/context'], 4)
    expect(onGpu.steps[0]!['grad/norm']).toBeCloseTo(cpu.steps[0]!['grad/norm'], 3)
    expect(stepError(cpu.weights, onGpu.weights, cpu.lr)).toBeLessThan(0.05)
  })

  it('a GRPO iteration on the toy bandit (rollouts, advantages, update)', async () => {
    const config = Config.make({
      algorithm: 'grpo',
      budget: { seedsPerIteration: 2, groupSize: 4 },
      rollout: { systemPrompt: '', maxNewTokens: 1, temperature: 1, maxTurns: 1 },
      policy: { lr: 3e-2 },
      update: { epochs: 1, minibatches: 1 },
      kl: Kl.none
    })
    const { cpu, gpu: onGpu } = await onBoth(async () => {
      const policy = Policy.make(ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 1, heads: 2, maxLen: 64 }), 8)
      const envs = Array.from({ length: 8 }, () => Toy.bandit())
      const trainer = Trainer.make({ config, policy, envs, template, tokenizer, contextLength: 64 })
      const result = await Trainer.iterate(trainer)()
      if (E.isLeft(result)) throw new Error(result.left._tag)
      const weights = Policy.trainableVariables(policy).map(read)
      trainer.dispose()
      policy.dispose()
      return { metrics: result.right, weights }
    })
    // same samples (the sampler's draws depend on the probabilities only through float32 rounding)
    expect(onGpu.metrics['episode/success_rate']).toBe(cpu.metrics['episode/success_rate'])
    expect(onGpu.metrics['loss/policy']).toBeCloseTo(cpu.metrics['loss/policy'], 4)
    expect(stepError(cpu.weights, onGpu.weights, 3e-2)).toBeLessThan(0.05)
  })
})
