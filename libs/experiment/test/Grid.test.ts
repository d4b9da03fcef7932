import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Grid.js'

describe('Grid', () => {
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
    expect(_.parseFlag('stages.0.epochs=1,2')).toEqual(E.right(['stages.0.epochs', [1, 2]]))
    expect(_.parseFlag('stages.1.algorithm=ppo,grpo')).toEqual(E.right(['stages.1.algorithm', ['ppo', 'grpo']]))
    expect(E.isLeft(_.parseFlag('nokey'))).toBe(true)
  })

  it('lets --grid flags replace the values of their key, and names a bad flag', () => {
    expect(_.withFlags({ a: [1], b: [2] }, ['b=3,4', 'c=x'])).toEqual(E.right({ a: [1], b: [3, 4], c: ['x'] }))
    expect(_.withFlags({}, ['nokey'])).toEqual(E.left('--grid nokey: expected key=v1,v2,...'))
  })

  it('ties paths joined by | to one value, and an @ variant sets each of its paths', () => {
    const json = { stages: [{ env: 'a' }], eval: { env: 'a' } }
    expect(_.setPaths(json, 'stages.0.env|eval.env', 'b')).toEqual(E.right({ stages: [{ env: 'b' }], eval: { env: 'b' } }))
    expect(_.setPaths(json, '@', { name: 'v', 'stages.0.env': 'c', 'eval.env': 'd' })).toEqual(E.right({ stages: [{ env: 'c' }], eval: { env: 'd' } }))
    expect(_.cells({ '@': [{ name: 'v', x: 1 }, { x: 2 }] }).map((c) => c.name)).toEqual(['v', '{"x":2}'])
  })

  it('makes every cell x seed, cells slowest, with the seed set, and names the cell of a bad path', () => {
    const json = { seed: 0, stages: [{ algorithm: 'ppo' }] }
    const variants = _.variants(json, { 'stages.0.algorithm': ['ppo', 'grpo'] }, [1, 2])
    expect(E.map((vs: ReadonlyArray<_.Variant>) => vs.map((v) => [v.cell, v.seed, v.json]))(variants)).toEqual(
      E.right([
        ['algorithm=ppo', 1, { seed: 1, stages: [{ algorithm: 'ppo' }] }],
        ['algorithm=ppo', 2, { seed: 2, stages: [{ algorithm: 'ppo' }] }],
        ['algorithm=grpo', 1, { seed: 1, stages: [{ algorithm: 'grpo' }] }],
        ['algorithm=grpo', 2, { seed: 2, stages: [{ algorithm: 'grpo' }] }]
      ])
    )
    expect(_.variants(json, { 'stages.3.algorithm': ['ppo'] }, [1])).toEqual(E.left('cell algorithm=ppo: 3.algorithm: no index 3 in an array of 1'))
  })
})
