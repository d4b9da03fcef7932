import { expectNoLeak, TestBackend } from '@mtrl/testing'
import { beforeAll, describe, expect, it } from 'vitest'
import { BackendParity } from '../src/index.js'

/** `outputs` with `key`'s numbers changed by `f` (rows or flat). */
const changed = (outputs: BackendParity.Outputs, key: string, f: (v: number, i: number) => number): BackendParity.Outputs => {
  const value = outputs[key]!
  const mapped = value.map((v, i) => (Array.isArray(v) ? (v as ReadonlyArray<number>).map(f) : f(v as number, i)))
  return { ...outputs, [key]: mapped as ReadonlyArray<number> }
}

const failed = (measures: ReadonlyArray<BackendParity.Measure>): ReadonlyArray<string> => measures.filter((m) => !m.passed).map((m) => m.name)

describe('BackendParity: the checks a backend is compared with cpu on', () => {
  const outputs = new Map<BackendParity.Name, BackendParity.Outputs>()
  beforeAll(async () => {
    await TestBackend.use('cpu')
    for (const name of BackendParity.names) outputs.set(name, await expectNoLeak(() => BackendParity.run(name)))
  })

  it('is deterministic: the same backend twice measures 0 everywhere (KV cache against full forward within float32)', () => {
    for (const name of BackendParity.names) {
      const measures = BackendParity.compare(name, outputs.get(name)!)(BackendParity.run(name))
      expect(measures.length).toBeGreaterThan(2)
      for (const m of measures) expect(m, `${name}: ${m.name}`).toMatchObject({ check: name, passed: true })
      for (const m of measures.filter((m) => !m.name.includes('full forward'))) expect(m.error, m.name).toBe(0)
    }
  })

  it('fails the measure of what a wrong kernel changes, and only it', () => {
    const forward = outputs.get('forward')!
    expect(failed(BackendParity.compare('forward', forward)(changed(forward, 'logits', (v, i) => (i === 3 ? v + 0.01 : v))))).toEqual(['logits'])
    expect(failed(BackendParity.compare('forward', forward)(changed(forward, 'entropy', () => 0)))).toEqual(['entropy'])
    const update = outputs.get('update')!
    // a weight off by a fifth of a step; a first moment off by 1%
    expect(failed(BackendParity.compare('update', update)(changed(update, 'weights', (v, i) => (i === 0 ? v + 2e-3 : v))))).toEqual([
      'weights after an Adam step (fraction of the learning rate)'
    ])
    expect(failed(BackendParity.compare('update', update)(changed(update, 'moments', (v) => v * 1.01)))).toEqual(['first moments'])
    expect(failed(BackendParity.compare('update', update)(changed(update, 'gradNorm', (v) => v * 1.001)))).toEqual(['gradient norm'])
    const decoding = outputs.get('decoding')!
    expect(failed(BackendParity.compare('decoding', decoding)(changed(decoding, 'tokens', (v, i) => (i === 0 ? v + 1 : v))))).toEqual([
      'greedy tokens differing from the reference'
    ])
    // a cache that disagrees with the full forward pass on its own backend
    expect(failed(BackendParity.compare('decoding', decoding)(changed(decoding, 'full', (v) => v - 0.01)))).toEqual([
      'cached log-probs against the full forward pass'
    ])
  })

  it('fails on missing or NaN outputs instead of passing them', () => {
    const forward = outputs.get('forward')!
    expect(failed(BackendParity.compare('forward', forward)({ ...forward, logprobs: [] }))).toEqual(['log-probs'])
    expect(failed(BackendParity.compare('forward', forward)(changed(forward, 'logits', () => NaN)))).toEqual(['logits'])
  })
})
