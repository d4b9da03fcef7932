import { Decode, RewardFn, type Env } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { Critic, ModelConfig, Policy } from '@mtrl/policy'
import { Penalty } from '@mtrl/rewards'
import { Memory } from '@mtrl/rollout'
import { expectNoLeak, TestBackend, Toy } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import { beforeAll, describe, expect, it } from 'vitest'
import * as Config from '../src/Config.js'
import * as Kl from '../src/Kl.js'
import * as Trainer from '../src/Trainer.js'
import { makeToyRun, step, template, tokenizer, toyConfig } from './fixtures/toyRun.js'

beforeAll(() => TestBackend.use('cpu'))

const decoded = Decode.decode('trainer configuration', Config.Config)
const snapshot = (variables: ReadonlyArray<tf.Variable>): number[][] => variables.map((v) => Array.from(v.dataSync()))

describe('Trainer', () => {
  it('returns every documented metric, namespaced, as data', async () => {
    const run = makeToyRun(toyConfig('ppo', 'corridor'), 'corridor')
    const m = await step(run.trainer)
    for (const name of [
      'loss/policy',
      'loss/value',
      'kl/mean',
      'clip/fraction',
      'entropy/mean',
      'value/explained_variance',
      'episode/success_rate',
      'episode/return',
      'episode/turns',
      'episode/invalid_rate',
      'logprob/sampler_trainer_gap',
      'perf/tokens_per_s',
      'time/rollout_s',
      'time/update_s',
      'kl/prior',
      'kl/coef',
      'advantage/std',
      'perf/update_tokens_per_s'
    ])
      expect(typeof (m as unknown as Record<string, unknown>)[name], name).toBe('number')
    expect(m['episode/turns']).toBe(3)
    expect(m['logprob/sampler_trainer_gap']).toBeLessThan(1e-4)
    expect(Number.isFinite(m['loss/value'])).toBe(true)
    expect(m.iteration).toBe(0)
    expect((await step(run.trainer)).iteration).toBe(1)
    run.dispose()
  })

  it('leaks no tensor across iterations (with and without the context loss, one minibatch or two)', async () => {
    for (const overrides of [
      {},
      { loss: { contextCoef: 0.3 } },
      { loss: { contextCoef: 0.3 }, update: { minibatches: 2 } }
    ] as ReadonlyArray<Config.Overrides>) {
      const run = makeToyRun(toyConfig('ppo', 'bandit', overrides), 'bandit')
      await step(run.trainer)
      await expectNoLeak(() => step(run.trainer))
      run.dispose()
    }
  })

  it('scores exploration moves with the policy itself: the first step starts at ratio 1 (nothing clipped, no policy change)', async () => {
    // Every turn explored, one minibatch, one pass: the loss is taken before any step, so with the
    // policy's own log-probs as behaviour log-probs the ratio is exactly 1. Behaviour log-probs of
    // 0 (what the batch holds for tokens without sampler log-probs) would give ratios p < 1.
    const run = makeToyRun(
      toyConfig('ppo', 'corridor', { update: { minibatches: 1 }, loss: { exploredCredit: 'signed' }, rollout: { exploreRate: 1 } }),
      'corridor'
    )
    const m = await step(run.trainer)
    expect(m['episode/explored_rate']).toBe(1)
    expect(Number.isNaN(m['logprob/sampler_trainer_gap'])).toBe(true)
    expect(m['clip/fraction']).toBe(0)
    expect(Math.abs(m['kl/policy_change'])).toBeLessThan(1e-6)
    expect(m['episode/turns']).toBeGreaterThan(0)
    run.dispose()
  })

  it('updates only the critic during critic warm-up', async () => {
    const run = makeToyRun(toyConfig('ppo', 'bandit', { critic: { warmup: 1 } }), 'bandit')
    const policyBefore = snapshot(Policy.trainableVariables(run.policy))
    const criticBefore = snapshot(Critic.trainableVariables(run.critic!))
    const m = await step(run.trainer)
    expect(snapshot(Policy.trainableVariables(run.policy))).toEqual(policyBefore)
    expect(snapshot(Critic.trainableVariables(run.critic!))).not.toEqual(criticBefore)
    expect(Number.isNaN(m['loss/policy'])).toBe(true)
    // after warm-up the policy takes steps (its loss is defined; on the bandit the whitened
    // advantages of one iteration may all be 0, so the weights need not move every time)
    expect(Number.isFinite((await step(run.trainer))['loss/policy'])).toBe(true)
    run.dispose()
  })

  it('filters zero-variance groups out of the batch', async () => {
    const run = makeToyRun(toyConfig('grpo', 'bandit', { selection: { filterZeroVariance: true } }), 'bandit')
    for (let i = 0; i < 3; i++) {
      const m = await step(run.trainer)
      expect(m['batch/samples'] + m['batch/filtered_episodes']).toBe(16)
      expect(m['batch/filtered_episodes'] % 4).toBe(0)
    }
    run.dispose()
  })

  it('dynamic sampling: plays oversample x the groups and updates on the first seedsPerIteration that carry signal', async () => {
    const config = toyConfig('grpo', 'bandit', { selection: { filterZeroVariance: true, oversample: 3 } })
    const played: number[] = []
    const used: number[] = []
    const run = makeToyRun(config, 'bandit')
    for (let i = 0; i < 3; i++) {
      const m = await step(run.trainer)
      played.push(m['batch/samples'] + m['batch/filtered_episodes'])
      used.push(m['batch/samples'])
      expect(m['batch/samples'] % 4).toBe(0)
      expect(m['batch/samples']).toBeLessThanOrEqual(16)
    }
    expect(played).toEqual([48, 48, 48])
    expect(Math.max(...used)).toBe(16)
    run.dispose()
    const refused = decoded(toyConfig('grpo', 'bandit', { selection: { oversample: 3 } }))
    expect(E.isLeft(refused) && refused.left.issues[0]!.path).toBe('selection.oversample')
  })

  it('down-sampling: plays groups of groupSize and updates on keepPerGroup episodes of each', async () => {
    const config = toyConfig('rloo', 'bandit', { budget: { groupSize: 8 }, selection: { keepPerGroup: 3 } })
    const run = makeToyRun(config, 'bandit')
    for (let i = 0; i < 2; i++) {
      const m = await step(run.trainer)
      expect(m['batch/samples']).toBe(12)
      expect(m['batch/filtered_episodes']).toBe(20)
    }
    run.dispose()
    for (const [algorithm, keepPerGroup] of [
      ['rloo', 1],
      ['rloo', 9],
      ['ppo', 9]
    ] as const) {
      const refused = decoded(toyConfig(algorithm, 'bandit', { budget: { groupSize: 8 }, selection: { keepPerGroup } }))
      expect(E.isLeft(refused) && refused.left.issues[0]!.path).toBe('selection.keepPerGroup')
    }
    expect(E.isRight(decoded(toyConfig('ppo', 'bandit', { budget: { groupSize: 8 }, selection: { keepPerGroup: 1 } })))).toBe(true)
  })

  it('measures KL to the reference: 0 while the policy equals it, positive once it moved (in-reward and in-loss)', async () => {
    for (const placement of ['reward', 'loss'] as const) {
      const config = toyConfig('grpo', 'bandit', { kl: { estimator: 'k3', placement, controller: { _tag: 'fixed', coef: 0.01 } } })
      const model = ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 1, heads: 2, maxLen: 64 })
      const policy = Policy.make(model, 0)
      const reference = Policy.make(model, 0)
      const trainer = Trainer.make({ config, policy, reference, envs: Array.from({ length: 16 }, () => Toy.bandit()), template, tokenizer, contextLength: 64 })
      expect((await step(trainer))['kl/mean']).toBeCloseTo(0, 6)
      await step(trainer)
      expect((await step(trainer))['kl/mean']).toBeGreaterThan(0)
      trainer.dispose()
      policy.dispose()
      reference.dispose()
    }
  })

  it('measures the drift from the prior every priorKlEvery iterations (NaN in between, never with 0); a KL term measures it every iteration', async () => {
    const model = ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 1, heads: 2, maxLen: 64 })
    const run = async (overrides: Parameters<typeof toyConfig>[2]): Promise<boolean[]> => {
      const policy = Policy.make(model, 0)
      const reference = Policy.make(model, 0)
      const trainer = Trainer.make({
        config: toyConfig('grpo', 'bandit', overrides),
        policy,
        reference,
        envs: Array.from({ length: 16 }, () => Toy.bandit()),
        template,
        tokenizer,
        contextLength: 64
      })
      const measured: boolean[] = []
      for (let i = 0; i < 4; i++) measured.push(Number.isFinite((await step(trainer))['kl/prior']))
      trainer.dispose()
      policy.dispose()
      reference.dispose()
      return measured
    }
    // GRPO without its KL term (Kl.none); with it, the KL is measured every iteration
    expect(await run({ priorKlEvery: 1, kl: Kl.none })).toEqual([true, true, true, true])
    expect(await run({ priorKlEvery: 3, kl: Kl.none })).toEqual([true, false, false, true])
    expect(await run({ priorKlEvery: 0, kl: Kl.none })).toEqual([false, false, false, false])
    expect(await run({ priorKlEvery: 0 })).toEqual([true, true, true, true])
    expect(await run({ priorKlEvery: 0, kl: { estimator: 'k3', placement: 'loss', controller: { _tag: 'fixed', coef: 0.01 } } })).toEqual([
      true,
      true,
      true,
      true
    ])
  })

  it('adapts the KL coefficient with an adaptive controller', async () => {
    const config = toyConfig('rloo', 'bandit', {
      kl: { estimator: 'k3', placement: 'reward', controller: { _tag: 'adaptive', coef: 0.1, target: 1e-6, horizon: 100 } }
    })
    const model = ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 1, heads: 2, maxLen: 64 })
    const policy = Policy.make(model, 0)
    const reference = Policy.make(model, 0)
    const trainer = Trainer.make({ config, policy, reference, envs: Array.from({ length: 16 }, () => Toy.bandit()), template, tokenizer, contextLength: 64 })
    // the coefficient follows the measured KL: up when it is above the target, down when below
    let coef = 0.1
    let above = 0
    for (let i = 0; i < 4; i++) {
      const m = await step(trainer)
      const kl = m['kl/mean']!
      if (kl > 1e-6) above++
      if (kl > 1e-6) expect(m['kl/coef']).toBeGreaterThan(coef)
      else expect(m['kl/coef']).toBeLessThan(coef)
      coef = m['kl/coef']!
    }
    expect(above).toBeGreaterThanOrEqual(2)
    trainer.dispose()
    policy.dispose()
    reference.dispose()
  })

  it('trains on per-turn samples in window memory', async () => {
    const run = makeToyRun(toyConfig('ppo', 'corridor', { rollout: { ...toyConfig('ppo', 'corridor').rollout, memory: Memory.window(1) } }), 'corridor')
    const m = await step(run.trainer)
    expect(m['batch/samples']).toBe(16 * 3)
    expect(Number.isFinite(m['loss/policy'])).toBe(true)
    run.dispose()
  })

  it('trains on fixed-turn batches, bootstrapping the episode cut at the window edge', async () => {
    const base = toyConfig('ppo', 'corridor')
    const run = makeToyRun({ ...base, rollout: { ...base.rollout, turnsPerSlot: 4 } }, 'corridor')
    const m = await step(run.trainer)
    expect(m['batch/samples']).toBe(16 * 2) // per slot: one full episode (3 turns) + one cut after 1 turn
    expect(m['episode/truncated_rate']).toBeCloseTo(0.5)
    expect(Number.isFinite(m['loss/value'])).toBe(true)
    run.dispose()
  })

  it('applies the reward function (here: the env reward plus an invalid-action penalty)', async () => {
    const config = toyConfig('grpo', 'bandit', { kl: Kl.none })
    const policy = Policy.make(ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 1, heads: 2, maxLen: 64 }), 0)
    const reward = RewardFn.sum([(t) => t.turnRewards, Penalty.invalidActionPenalty(1)])
    const trainer = Trainer.make({ config, policy, reward, envs: Array.from({ length: 16 }, () => Toy.bandit()), template, tokenizer, contextLength: 64 })
    const m = await step(trainer)
    expect(m['episode/invalid_rate']).toBeGreaterThan(0)
    expect(m['episode/return']).toBeCloseTo(m['episode/success_rate'] - m['episode/invalid_rate'], 6)
    trainer.dispose()
    policy.dispose()
  })

  it('replays the games lost in the previous iteration: the next draw starts with them, most recent first', async () => {
    // a bandit whose plays are recorded: (iteration, seed, won) per episode
    const plays: { iteration: number; seed: number; won: boolean }[] = []
    let iteration = 0
    const recorded = (): Env.Env => {
      const env = Toy.bandit()
      let seed = -1
      return {
        ...env,
        reset: (s) => ((seed = s), env.reset(s)),
        step: (a) => async () => {
          const r = await env.step(a)()
          if (E.isRight(r)) plays.push({ iteration, seed, won: r.right.won })
          return r
        }
      }
    }
    const config = toyConfig('grpo', 'bandit', { replay: { share: 0.5, attempts: 2 }, kl: Kl.none })
    const model = ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 1, heads: 2, maxLen: 64 })
    const policy = Policy.make(model, 0)
    const trainer = Trainer.make({ config, policy, envs: Array.from({ length: 16 }, recorded), template, tokenizer, contextLength: 64 })
    let replayedGames = 0
    for (; iteration < 6; iteration++) {
      const before = trainer.state.replay
      const queue = before.map((e) => e.seed)
      const m = await step(trainer)
      const seeds = [...new Set(plays.filter((p) => p.iteration === iteration).map((p) => p.seed))]
      expect(seeds.slice(0, m['replay/games'])).toEqual(queue.slice(0, m['replay/games']))
      expect(m['replay/games']).toBe(Math.min(2, queue.length))
      replayedGames += m['replay/games']
      // the queue now starts with this iteration's lost games (in draw order) that were replayed fewer than 2 times
      const replayNumber = (i: number): number => (i < m['replay/games'] ? before[i]!.replays + 1 : 0)
      const again = seeds.filter((s, i) => plays.some((p) => p.iteration === iteration && p.seed === s && !p.won) && replayNumber(i) < 2)
      expect(trainer.state.replay.slice(0, again.length).map((e) => e.seed)).toEqual(again.slice(0, 4))
      expect(trainer.state.replay.length).toBeLessThanOrEqual(4)
      if (m['replay/games'] > 0) {
        const replayed = seeds.slice(0, m['replay/games'])
        const won = plays.filter((p) => p.iteration === iteration && replayed.includes(p.seed))
        expect(m['replay/success_rate']).toBeCloseTo(won.filter((p) => p.won).length / won.length, 10)
      } else expect(Number.isNaN(m['replay/success_rate'])).toBe(true)
    }
    expect(replayedGames).toBeGreaterThan(0) // a random bandit policy loses some games
    const counts = new Map<number, number>()
    for (const p of plays) counts.set(p.seed, (counts.get(p.seed) ?? 0) + 1)
    expect(Math.max(...counts.values())).toBeLessThanOrEqual(4 * (1 + 2)) // groups of 4, at most 2 replays
    trainer.dispose()
    policy.dispose()
  })

  it('draws the same seeds as before replay existed when replay is off', async () => {
    const seen: number[] = []
    const envs = Array.from({ length: 16 }, (): Env.Env => {
      const env = Toy.bandit()
      return { ...env, reset: (s) => (seen.push(s), env.reset(s)) }
    })
    const model = ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 1, heads: 2, maxLen: 64 })
    const policy = Policy.make(model, 0)
    const trainer = Trainer.make({ config: toyConfig('grpo', 'bandit', { kl: Kl.none }), policy, envs, template, tokenizer, contextLength: 64 })
    await step(trainer)
    const tasks = Trainer.streams(0).tasks
    expect([...new Set(seen)]).toEqual(Array.from({ length: 4 }, () => tasks.int(2147483647)))
    expect(trainer.state.replay).toEqual([])
    trainer.dispose()
    policy.dispose()
  })

  it('rejects setups that cannot run the algorithm', () => {
    const policy = Policy.make(ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 1, heads: 2, maxLen: 64 }), 0)
    const base = { policy, template, tokenizer, contextLength: 64 }
    expect(() => Trainer.make({ ...base, config: toyConfig('ppo', 'bandit'), envs: Array.from({ length: 16 }, () => Toy.bandit()) })).toThrow(/critic/)
    expect(() =>
      Trainer.make({ ...base, config: toyConfig('grpo', 'bandit', { budget: { groupSize: 1 } }), envs: Array.from({ length: 4 }, () => Toy.bandit()) })
    ).toThrow(/groupSize/)
    expect(() => Trainer.make({ ...base, config: toyConfig('grpo', 'bandit'), envs: [Toy.bandit()] })).toThrow(/envs/)
    // GRPO's KL term needs the reference it is measured against; the error says how to turn it off
    expect(() => Trainer.make({ ...base, config: toyConfig('grpo', 'bandit'), envs: Array.from({ length: 16 }, () => Toy.bandit()) })).toThrow(
      "grpo's KL term (loss) needs a reference policy"
    )
    expect(() =>
      Trainer.make({
        ...base,
        config: toyConfig('reinforce++', 'bandit', { budget: { groupSize: 1, seedsPerIteration: 16 } }),
        envs: Array.from({ length: 16 }, () => Toy.bandit())
      })
    ).toThrow("reinforce++'s KL term (reward)")
    policy.dispose()
  })
})
