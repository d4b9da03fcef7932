import * as fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/TestLooks.js'

const look = (over: Partial<_.Look> = {}): _.Look => ({
  date: '2026-12-05T10:00:00.000Z',
  commit: 'e3f713b0000000000000000000000000000000000',
  recipe: 'sft-rl-budget-from-base',
  recipeHash: 'aaaaaaaaaaaaaaaa',
  seed: 1,
  run: 'runs/budget/20_SFT_800_RL-seed1',
  phase: 'after stage 2 (rl on textworld/w2-o3-q4)',
  checkpoint: 'c1c1c1c1c1c1c1c1',
  env: 'textworld/w2-o3-q4',
  firstSeed: 4_000_000_000,
  episodes: 100,
  temperature: 0,
  samplingSeed: 1001,
  backend: 'wasm',
  successRate: 0.82,
  via: 'run',
  ...over
})

describe('TestLooks.before (mtrl eval on test seeds)', () => {
  const ledger = [look()]

  it('refuses another checkpoint of a recipe version and seed already looked at, naming the earlier look and the way forward', () => {
    // the paper-base budget grid's case: after RL looked at, then the after-SFT checkpoint of the same run
    const v = _.before(ledger)({ recipe: 'sft-rl-budget-from-base', recipeHash: 'aaaaaaaaaaaaaaaa', seed: 1, checkpoint: 'd2d2d2d2d2d2d2d2' })
    expect(v._tag).toBe('Refused')
    if (v._tag !== 'Refused') return
    expect(v.earlier).toEqual(ledger[0])
    expect(v.message).toContain('2026-12-05 10:00 UTC at commit e3f713b')
    expect(v.message).toContain('runs/budget/20_SFT_800_RL-seed1')
    expect(v.message).toContain('--split validation')
    expect(v.message).toContain('new version of the recipe')
  })

  it('lets through the checkpoint already looked at, another training seed, another recipe version, a model outside any run', () => {
    const go = _.before(ledger)
    expect(go({ recipe: 'r', recipeHash: 'aaaaaaaaaaaaaaaa', seed: 1, checkpoint: 'c1c1c1c1c1c1c1c1' })._tag).toBe('Go')
    expect(go({ recipe: 'r', recipeHash: 'aaaaaaaaaaaaaaaa', seed: 2, checkpoint: 'd2d2d2d2d2d2d2d2' })._tag).toBe('Go')
    expect(go({ recipe: 'r', recipeHash: 'bbbbbbbbbbbbbbbb', seed: 1, checkpoint: 'd2d2d2d2d2d2d2d2' })._tag).toBe('Go')
    expect(go({ recipe: null, recipeHash: null, seed: null, checkpoint: 'd2d2d2d2d2d2d2d2' })._tag).toBe('Go')
    expect(_.before([])({ recipe: 'r', recipeHash: 'aaaaaaaaaaaaaaaa', seed: 1, checkpoint: 'x' })._tag).toBe('Go')
  })
})

describe('TestLooks.after', () => {
  it('the same checkpoint in the same evaluation with the same figure is a repeat; with another figure a mismatch naming both', () => {
    const ledger = [look()]
    expect(_.after(ledger)(look({ run: null, via: 'eval', date: '2026-12-06T00:00:00.000Z' }))).toEqual({ _tag: 'Repeat', earlier: ledger[0] })
    const v = _.after(ledger)(look({ successRate: 0.8 }))
    expect(v._tag).toBe('Mismatch')
    if (v._tag === 'Mismatch') expect(v.message).toMatch(/gave 82\.0% .* and 80\.0% now/)
  })

  it('another evaluation of the same checkpoint (games, temperature, sampling seed at a temperature, backend) is a new look', () => {
    const ledger = [look()]
    for (const other of [
      { episodes: 200 },
      { env: 'textworld/w4-o6-q8' },
      { firstSeed: 4_000_000_100 },
      { temperature: 1 },
      { backend: 'tensorflow' },
      { checkpoint: 'other' },
      { checkpoint: null }
    ])
      expect(_.after(ledger)(look({ ...other, successRate: 0.5 }))._tag).toBe('New')
    // greedy play ignores the sampling seed
    expect(_.after(ledger)(look({ samplingSeed: 7 }))._tag).toBe('Repeat')
  })

  it('property: a look is never refused by a ledger of its own repeats, and its repeat is never new', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 1, max: 5 }), (rate, n) => {
        const ledger = Array.from({ length: n }, () => look({ successRate: rate }))
        expect(_.after(ledger)(look({ successRate: rate }))._tag).toBe('Repeat')
        expect(_.before(ledger)({ recipe: 'r', recipeHash: 'aaaaaaaaaaaaaaaa', seed: 1, checkpoint: 'c1c1c1c1c1c1c1c1' })._tag).toBe('Go')
      })
    )
  })
})

describe('TestLooks.numbers and format', () => {
  it('a run is one look whatever its phases and environments; a rerun of a recipe version and seed is the next; an mtrl eval of a looked-at checkpoint belongs to its look', () => {
    const ledger = [
      look({ phase: 'before training', checkpoint: 'scratch-1' }),
      look(),
      look({ env: 'textworld/w4-o6-q8' }),
      look({ seed: 2, run: 'r2', checkpoint: 's2' }),
      look({ run: 'rerun', checkpoint: 'c3' }),
      look({ run: null, via: 'eval', checkpoint: 'c1c1c1c1c1c1c1c1', temperature: 1 }),
      look({ recipeHash: null, recipe: null, seed: null, run: null, via: 'eval' })
    ]
    expect(_.numbers(ledger)).toEqual([1, 1, 1, 1, 2, 1, 0])
  })

  it('lists every look, one line each, with its recipe version, look number, checkpoint and figure', () => {
    const text = _.format([look(), look({ run: 'rerun', checkpoint: 'c3c3c3c3' })])
    const lines = text.split('\n')
    expect(lines).toHaveLength(3)
    expect(lines[1]).toContain('sft-rl-budget-from-base (aaaaaaaa)')
    expect(lines[1]).toContain('82.0%')
    expect(lines[1]).toContain('4000000000+100')
    expect(lines[2]).toMatch(/ {3}1 {5}2 {2}after stage 2/)
  })

  it('a custom first seed that reaches the test range is a test look', () => {
    expect(_.touchesTest(4_000_000_000, 1)).toBe(true)
    expect(_.touchesTest(3_999_999_990, 11)).toBe(true)
    expect(_.touchesTest(3_500_000_000, 100)).toBe(false)
    expect(_.touchesTest(3_999_999_990, 10)).toBe(false)
  })
})
