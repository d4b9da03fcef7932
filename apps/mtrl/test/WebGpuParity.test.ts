/**
 * The webgpu backend against the cpu backend's reference kernels, on the same weights: what
 * training and sampling compute (logits and log-probs, the policy-loss gradients, an Adam step,
 * KV-cached decoding, an SFT step of the default model's layout, a GRPO iteration). Runs where a
 * WebGPU adapter exists (a GPU, or SwiftShader's Vulkan in CI): `[needs webgpu]` elsewhere.
 * Shapes are small: a software adapter runs each kernel on 2 CPU cores.
 */
import type { Trajectory } from '@mtrl/core'
import { ChatTemplate, ModelConfig, Policy } from '@mtrl/policy'
import { expectNoLeak, Services, TestBackend, Toy } from '@mtrl/testing'
import { BackendParity, Config, Kl, Trainer } from '@mtrl/trainer-rl'
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

/**
 * recipes/default.json's model layout (2 layers, heads 16 wide, previous-token embedding, canon
 * span 3) at d 32 on the toy vocabulary: the same kernels as at its d 128 (the projections take
 * TensorFlow.js's tiled matmul program there too: more than 8 tiles of 32 x 32), at a quarter of
 * the software adapter's time (2.8 s of CPU against 8.5 s for the step, measured 2026-12-06).
 */
const defaultLayout = ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 32, layers: 2, heads: 2, maxLen: 64, prevTokenEmbedding: true, canonSpan: 3 })

const read = (t: tf.Tensor): Float32Array => new Float32Array(t.dataSync())

/**
 * The largest difference between weights after a step, as a fraction of the learning rate:
 * Adam moves a weight by about the learning rate whatever its gradient's size, so where a
 * gradient is near 0 float32 rounding moves it by a visible fraction of a step; a wrong kernel
 * moves weights by whole steps.
 */
const stepError = (reference: ReadonlyArray<Float32Array>, other: ReadonlyArray<Float32Array>, learningRate: number): number =>
  Math.max(...reference.map((w, i) => Math.max(...Array.from(w, (v, j) => Math.abs(v - other[i]![j]!))))) / learningRate

/** How far apart two steps from the same weights are: the norm of their difference over the norm of the reference step. */
const stepDifference = (before: ReadonlyArray<Float32Array>, reference: ReadonlyArray<Float32Array>, other: ReadonlyArray<Float32Array>): number => {
  let apart = 0
  let step = 0
  reference.forEach((w, i) =>
    w.forEach((v, j) => {
      apart += (v - other[i]![j]!) ** 2
      step += (v - before[i]![j]!) ** 2
    })
  )
  return Math.sqrt(apart / step)
}

const descriptions: Readonly<Record<BackendParity.Name, string>> = {
  forward: 'logits, log-probs and entropy at temperature 0.9',
  update: 'gradients of the clipped policy loss (PPO/GRPO) with GRPO advantages, and one Adam step',
  decoding: 'KV-cached greedy decoding equals the full forward pass and the cpu backend'
}

// on a software adapter a case takes up to 30 s of wall time on a loaded 2-core machine (load 17): more than the suite's 60 s default leaves
describe.runIf(gpu)(`webgpu vs cpu parity ${tag}`, { timeout: 300_000 }, () => {
  // logits, log-probs and entropy; the policy-loss gradients and an Adam step; KV-cached decoding (the page's check runs these same)
  for (const name of BackendParity.names)
    it(`${name}: ${descriptions[name]}`, async () => {
      const { cpu, gpu: onGpu } = await onBoth(() => BackendParity.run(name))
      const measures = BackendParity.compare(name, cpu)(onGpu)
      expect(measures.length).toBeGreaterThan(2)
      for (const m of measures) expect(m.error, m.name).toBeLessThanOrEqual(m.tolerance)
    })

  it("an SFT step of the default model's layout on expert demonstrations", async () => {
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
      const policy = Policy.make(defaultLayout, 7)
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
      // BackendParity's model shape (its kernels are compiled already), a seed whose rollouts win once: a GRPO group with a nonzero advantage
      const policy = Policy.make(ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 32, layers: 2, heads: 4, kvHeads: 2, ffn: 48, maxLen: 64 }), 2)
      const envs = Array.from({ length: 8 }, () => Toy.bandit())
      const before = Policy.trainableVariables(policy).map(read)
      const trainer = Trainer.make({ config, policy, envs, template, tokenizer, contextLength: 64 })
      const result = await Trainer.iterate(trainer)()
      if (E.isLeft(result)) throw new Error(result.left._tag)
      const weights = Policy.trainableVariables(policy).map(read)
      trainer.dispose()
      policy.dispose()
      return { metrics: result.right, weights, before }
    })
    // same samples (the sampler's draws depend on the probabilities only through float32 rounding)
    expect(cpu.metrics['episode/success_rate']).toBeGreaterThan(0)
    expect(onGpu.metrics['episode/success_rate']).toBe(cpu.metrics['episode/success_rate'])
    expect(cpu.metrics['grad/policy_norm']).toBeGreaterThan(0.1)
    expect(onGpu.metrics['grad/policy_norm']).toBeCloseTo(cpu.metrics['grad/policy_norm']!, 3)
    expect(onGpu.metrics['loss/policy']).toBeCloseTo(cpu.metrics['loss/policy'], 4)
    // the step as a whole (a few weights with a gradient at float32's noise floor step by a sign that is that noise's)
    expect(stepDifference(cpu.before, cpu.weights, onGpu.weights)).toBeLessThan(0.05)
  })
})
