import { Checkpoint, ModelConfig, Policy, WordTokenizer } from '@mtrl/policy'
import { TestBackend } from '@mtrl/testing'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Checkpointing.js'
import type * as Sft from '../src/Sft.js'

const root = mkdtempSync(join(tmpdir(), 'mtrl-sft-ckpt-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
beforeAll(() => TestBackend.use('cpu'))

const tokenizer = WordTokenizer.build({ maxVocab: 64, minCount: 1 })(['go north'])
const makePolicy = (): Policy.Policy =>
  Policy.make(ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 8, layers: 1, heads: 2, maxLen: 16 }), 1, { tokenizer })
const step = (i: number, context: number): Sft.StepMetrics => ({
  step: i,
  epoch: 0,
  'loss/sft': 2 - i / 10,
  'loss/context': context,
  'grad/norm': 0.5,
  'optim/lr': 1e-3
})
const snapshotOf = (policy: Policy.Policy, average: boolean): Sft.Snapshot => {
  const sizes = Policy.trainableVariables(policy).map((v) => v.size)
  const filled = (x: number) => sizes.map((n, i) => Float32Array.from({ length: n }, (_x, j) => x + i + j / 1000))
  return {
    optimizer: { steps: 3, m: filled(0.1), v: filled(0.2) },
    average: average ? filled(0.3) : undefined,
    initialHeldOut: Number.NaN,
    steps: [step(0, Number.NaN), step(1, Number.NaN), step(2, 0.7)],
    epochs: []
  }
}

describe('Checkpointing', () => {
  it('a snapshot round-trips exactly (NaN metrics included), with and without the weight average', async () => {
    for (const average of [true, false]) {
      const policy = makePolicy()
      const snapshot = snapshotOf(policy, average)
      const dir = join(root, `snap-${average}`)
      expect(await _.save(dir)(policy, snapshot)()).toEqual(E.right(undefined))
      const loaded = await _.load(dir)()
      if (E.isLeft(loaded) || O.isNone(loaded.right)) throw new Error('not loaded')
      expect(loaded.right.value.snapshot).toEqual(snapshot)
      expect(Policy.toHost(loaded.right.value.policy.variables)).toEqual(Policy.toHost(policy.variables))
      loaded.right.value.policy.dispose()
      policy.dispose()
    }
  })

  it('is none for a folder without a checkpoint, and a mismatch for a policy checkpoint without a snapshot', async () => {
    expect(await _.load(join(root, 'nothing'))()).toEqual(E.right(O.none))
    const policy = makePolicy()
    const dir = join(root, 'plain')
    await Checkpoint.save(dir, { policy })()
    policy.dispose()
    const loaded = await _.load(dir)()
    expect(E.isLeft(loaded) && loaded.left).toMatchObject({ _tag: 'Mismatch', dir })
    expect(E.isLeft(loaded) && _.message(loaded.left)).toMatch(/does not fit this run: not an SFT snapshot/)
  })
})
