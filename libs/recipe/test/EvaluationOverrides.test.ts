import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Evaluation.js'

const env = { kind: 'textworld', settings: 'w2-o3-q4' }
const target = _.ofFolder('models/x', 'checkpoint', env)
const run = {
  ...target,
  recipe: { ...target.recipe, seed: 5, eval: { ...target.recipe.eval, episodes: 40, temperature: 0.5, split: 'validation' as const, seedBase: 3_500_000_000 } }
}

const evalOf = (overrides: _.Overrides, of: _.Target = run) =>
  E.map((t: _.Target) => ({ seed: t.recipe.seed, ...t.recipe.eval, envs: undefined, batch: undefined }))(_.withOverrides(overrides)(of))

describe('Evaluation.withOverrides', () => {
  it("keeps the recipe's evaluation when nothing is given", () => {
    expect(evalOf({})).toEqual(
      E.right({ seed: 5, episodes: 40, temperature: 0.5, split: 'validation', seedBase: 3_500_000_000, envs: undefined, batch: undefined })
    )
  })

  it('chooses the seeds by split (test: 4e9, validation: 3.5e9) or by seed base (custom unless it is a split start)', () => {
    expect(E.map((e: { split: string; seedBase: number }) => [e.split, e.seedBase])(evalOf({ split: 'test' }))).toEqual(E.right(['test', 4_000_000_000]))
    expect(E.map((e: { split: string; seedBase: number }) => [e.split, e.seedBase])(evalOf({ seedBase: 123 }))).toEqual(E.right(['custom', 123]))
    expect(E.map((e: { split: string; seedBase: number }) => [e.split, e.seedBase])(evalOf({ seedBase: 4_000_000_000 }))).toEqual(
      E.right(['test', 4_000_000_000])
    )
    // a seed base wins over a split
    expect(E.map((e: { split: string; seedBase: number }) => [e.split, e.seedBase])(evalOf({ split: 'test', seedBase: 7 }))).toEqual(E.right(['custom', 7]))
  })

  it('sets episodes, temperature and the sampling seed, and keeps the model and the environments', () => {
    const over = _.withOverrides({ episodes: 3, temperature: 1, seed: 9 })(run)
    if (E.isLeft(over)) throw new Error(over.left)
    expect([over.right.recipe.eval.episodes, over.right.recipe.eval.temperature, over.right.recipe.seed]).toEqual([3, 1, 9])
    expect(over.right.recipe.eval.envs).toEqual(run.recipe.eval.envs)
    expect(over.right.model).toEqual({ kind: 'checkpoint', path: 'models/x' })
  })

  it('names a split that is neither validation nor test', () => {
    expect(_.withOverrides({ split: 'train' })(run)).toEqual(E.left('--split train: expected validation or test'))
  })
})
