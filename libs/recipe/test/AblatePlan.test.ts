import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Ablate.js'

const env = { kind: 'textworld', settings: 'w1-o1-q1' }
const json = {
  name: 'plan-test',
  seed: 4,
  model: { kind: 'scratch', dModel: 16, layers: 1, heads: 2, maxLen: 192, corpusEpisodes: 10 },
  stages: [{ kind: 'rl', env, iterations: 1, algorithm: 'grpo' }],
  ablation: { grid: { 'stages.0.algorithm': ['grpo', 'rloo'] }, seeds: [1, 2] }
}
const path = 'recipes/plan-test.json'

const cells = (planned: E.Either<string, _.Planned>) =>
  E.map((p: _.Planned) => p.items.map((i) => `${i.cell}/${i.seed}/${(i.recipe.stages[0] as { algorithm: string }).algorithm}/${i.recipe.seed}`))(planned)

describe('Ablate.plan', () => {
  it("plans the recipe's own grid and seeds, every cell x seed decoded with its values", () => {
    const planned = _.plan({ path })(json)
    expect(E.map((p: _.Planned) => [p.base.name, p.grid, p.seeds])(planned)).toEqual(E.right(['plan-test', json.ablation.grid, [1, 2]]))
    expect(cells(planned)).toEqual(E.right(['algorithm=grpo/1/grpo/1', 'algorithm=grpo/2/grpo/2', 'algorithm=rloo/1/rloo/1', 'algorithm=rloo/2/rloo/2']))
  })

  it("lays --grid flags over the recipe's grid and --seeds over its seeds; without either, the recipe's seed", () => {
    const planned = _.plan({ path, grid: ['stages.0.algorithm=ppo'], seeds: '7' })(json)
    expect(cells(planned)).toEqual(E.right(['algorithm=ppo/7/ppo/7']))
    const { ablation: _a, ...plain } = json
    expect(E.map((p: _.Planned) => p.seeds)(_.plan({ path, grid: ['stages.0.algorithm=rloo'] })(plain))).toEqual(E.right([4]))
  })

  it('names what is wrong: the recipe with its path, the seeds, the cell that does not decode', () => {
    expect(_.plan({ path })({ ...json, stages: 'none' })).toEqual(
      E.left(expect.stringMatching(/^recipes\/plan-test\.json: invalid recipe:\s+stages: expected Array/))
    )
    expect(_.plan({ path, seeds: '1,-2' })(json)).toEqual(E.left('--seeds: expected non-negative integers, got "1,-2"'))
    expect(_.plan({ path, seeds: '1,x' })(json)).toEqual(E.left('--seeds: expected non-negative integers, got "1,x"'))
    const bad = _.plan({ path, grid: ['stages.0.algorithm=grpo,guess'] })(json)
    expect(bad).toEqual(E.left(expect.stringMatching(/^cell algorithm=guess, seed 1: /)))
  })
})
