import { ModelConfig, Policy } from '@mtrl/policy'
import { TestBackend } from '@mtrl/testing'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Checkpointing from '../src/Checkpointing.js'
import * as _ from '../src/Driver.js'
import * as Sft from '../src/Sft.js'
import { corridorDemos, tokenizer } from './fixtures/corridor.js'

beforeAll(() => TestBackend.use('cpu'))
const root = mkdtempSync(join(tmpdir(), 'mtrl-sft-driver-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const config = ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 1, heads: 2, maxLen: 64 })
const options: Sft.Options = { ...Sft.defaultOptions, epochs: 2, batchSize: 3, learningRate: 1e-2, heldOutFraction: 0.2, seed: 2 }

describe('Driver', () => {
  it('trains to the end like Sft.trainAsync, writing no checkpoint when none is due', async () => {
    const samples = await corridorDemos(10)
    const a = Policy.make(config, 1)
    const b = Policy.make(config, 1)
    const expected = await Sft.trainAsync(options)(a)(samples)
    const dir = join(root, 'finished')
    expect(await _.run(options, { dir, every: 0 })(b)(samples)()).toEqual(E.right({ _tag: 'Finished', result: expected }))
    expect(existsSync(dir)).toBe(false)
    ;[a, b].forEach((p) => p.dispose())
  })

  it('stops on request with a checkpoint, and continues from it to the same end as an uninterrupted stage', async () => {
    const samples = await corridorDemos(10)
    const whole = Policy.make(config, 1)
    const expected = await _.run(options, { dir: join(root, 'whole'), every: 0 })(whole)(samples)()
    const dir = join(root, 'stopped')
    const first = Policy.make(config, 1)
    let steps = 0
    const stopped = await _.run(options, { dir, every: 2, stop: () => steps >= 3, hooks: { onStep: () => (steps += 1) } })(first)(samples)()
    expect(stopped).toEqual(E.right({ _tag: 'Stopped', steps: 3 }))
    first.dispose()
    const loaded = await Checkpointing.load(dir)()
    if (E.isLeft(loaded) || O.isNone(loaded.right)) throw new Error('no checkpoint')
    const { policy, snapshot } = loaded.right.value
    expect(snapshot.steps.length).toBe(3)
    expect(await _.run(options, { dir, every: 2, from: snapshot })(policy)(samples)()).toEqual(expected)
    ;[whole, policy].forEach((p) => p.dispose())
  })

  it('ends as trained where `enough` says so: the weights of that step, the epoch so far in the metrics', async () => {
    const samples = await corridorDemos(10) // 8 to train on: 3 steps per epoch, 6 in all
    const stoppedPolicy = Policy.make(config, 1)
    let taken = 0
    const stopped = await _.run(options, { dir: join(root, 'at-4'), every: 0, stop: () => taken >= 4, hooks: { onStep: () => (taken += 1) } })(stoppedPolicy)(
      samples
    )()
    expect(stopped).toEqual(E.right({ _tag: 'Stopped', steps: 4 }))
    const ended = Policy.make(config, 1)
    const asked: number[] = []
    const enough = (steps: number): Promise<boolean> => {
      asked.push(steps)
      return Promise.resolve(steps === 4)
    }
    const outcome = await _.run(options, { dir: join(root, 'ended'), every: 0, enough })(ended)(samples)()
    if (E.isLeft(outcome) || outcome.right._tag !== 'Finished') throw new Error('expected a finished stage')
    const { steps, epochs } = outcome.right.result
    expect(asked).toEqual([1, 2, 3, 4])
    expect(steps.map((m) => m.step)).toEqual([0, 1, 2, 3])
    expect(epochs.map((m) => m.epoch)).toEqual([0, 1])
    expect(epochs[0]!['loss/train']).toBeCloseTo((steps[0]!['loss/sft'] + steps[1]!['loss/sft'] + steps[2]!['loss/sft']) / 3, 6)
    expect(epochs[1]!['loss/train']).toBeCloseTo(steps[3]!['loss/sft'], 6)
    const weights = (p: Policy.Policy) => Policy.trainableVariables(p).map((v) => Array.from(v.dataSync()))
    expect(weights(ended)).toEqual(weights(stoppedPolicy))
    ;[stoppedPolicy, ended].forEach((p) => p.dispose())
  })

  it('ending early applies the weight average of the steps taken', async () => {
    const samples = await corridorDemos(10)
    const averaged = { ...options, emaDecay: 0.5 }
    const dir = join(root, 'average-at-4')
    const stoppedPolicy = Policy.make(config, 1)
    let taken = 0
    await _.run(averaged, { dir, every: 0, stop: () => taken >= 4, hooks: { onStep: () => (taken += 1) } })(stoppedPolicy)(samples)()
    stoppedPolicy.dispose()
    const loaded = await Checkpointing.load(dir)()
    if (E.isLeft(loaded) || O.isNone(loaded.right)) throw new Error('no checkpoint')
    const average = loaded.right.value.snapshot.average!
    loaded.right.value.policy.dispose()
    const ended = Policy.make(config, 1)
    await _.run(averaged, { dir: join(root, 'average-ended'), every: 0, enough: (steps) => Promise.resolve(steps === 4) })(ended)(samples)()
    const weights = Policy.trainableVariables(ended).map((v) => Array.from(v.dataSync()))
    expect(weights).toEqual(average.map((a) => Array.from(a)))
    ended.dispose()
  })

  it('stops with the storage error when a checkpoint cannot be written (at the next step)', async () => {
    const samples = await corridorDemos(10)
    const file = join(root, 'a-file')
    writeFileSync(file, '')
    const policy = Policy.make(config, 1)
    let steps = 0
    const failed = await _.run(options, { dir: join(file, 'below'), every: 1, hooks: { onStep: () => (steps += 1) } })(policy)(samples)()
    policy.dispose()
    expect(E.isLeft(failed) && failed.left._tag).toBe('Storage')
    expect(steps).toBe(2)
  })
})
