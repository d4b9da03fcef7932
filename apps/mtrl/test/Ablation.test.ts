import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/pipeline/Ablation.js'

describe('Ablation', () => {
  it('makes one cell per combination', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), fc.array(fc.integer(), { minLength: 1, maxLength: 3 }), { maxKeys: 3 }), (grid) => {
        const expected = Object.values(grid).reduce((n, vs) => n * vs.length, 1)
        expect(_.cells(grid).length).toBe(expected)
      })
    )
  })

  it('names cells by their values', () => {
    expect(_.cells({ 'stages.1.algorithm': ['ppo', 'grpo'] }).map((c) => c.name)).toEqual(['algorithm=ppo', 'algorithm=grpo'])
  })

  it('sets dotted paths without touching the rest', () => {
    const json = { stages: [{ a: 1 }, { b: 2, c: 3 }], seed: 1 }
    expect(_.setPath(json, 'stages.1.b', 9)).toEqual(E.right({ stages: [{ a: 1 }, { b: 9, c: 3 }], seed: 1 }))
    expect(json.stages[1]!.b).toBe(2)
    expect(_.setPath(json, 'stages.5.b', 9)).toEqual(E.left('5.b: no index 5 in an array of 2'))
  })

  it('parses grid flags as JSON when possible', () => {
    expect(_.parseGridFlag('stages.0.epochs=1,2')).toEqual(E.right(['stages.0.epochs', [1, 2]]))
    expect(_.parseGridFlag('stages.1.algorithm=ppo,grpo')).toEqual(E.right(['stages.1.algorithm', ['ppo', 'grpo']]))
    expect(E.isLeft(_.parseGridFlag('nokey'))).toBe(true)
  })

  it('summarises seeds with mean and sample std', () => {
    const row = (successRate: number) => [{ env: 'e', successRate, episodes: 1, ci95: { low: 0, high: 1 }, turnsMean: 1, returnMean: 0, invalidRate: 0, perTaskType: {} }]
    const [r] = _.rows([
      { cell: 'a', seed: 1, final: row(0.5) },
      { cell: 'a', seed: 2, final: row(0.7) }
    ])
    expect(r!.mean).toBeCloseTo(0.6)
    expect(r!.std).toBeCloseTo(Math.sqrt(0.02))
  })
})
