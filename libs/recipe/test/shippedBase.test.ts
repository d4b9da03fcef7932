import { TestBackend } from '@mtrl/testing'
import * as E from 'fp-ts/lib/Either.js'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import * as Evaluation from '../src/Evaluation.js'
import * as Model from '../src/Model.js'
import * as Recipe from '../src/Recipe.js'

beforeAll(() => TestBackend.use('cpu'))

const root = resolve(__dirname, '..', '..', '..')
const base = join(root, 'models', 'base')
const recipe = (name: string): unknown => JSON.parse(readFileSync(join(root, 'recipes', name), 'utf8'))

describe('the shipped base (models/base)', () => {
  it("is what recipes/base.json builds: its architecture, a tokenizer with the games' words", async () => {
    const built = Recipe.decode(recipe('base.json'))
    if (E.isLeft(built) || built.right.model.kind !== 'scratch') throw new Error('recipes/base.json: expected a scratch model')
    const agent = await Model.pretrained({ kind: 'base', path: base })()
    if (E.isLeft(agent)) throw new Error(agent.left.message)
    try {
      const { dModel, layers, heads, maxLen } = built.right.model
      expect(agent.right.policy.config).toMatchObject({ dModel, layers, heads, maxLen, vocab: agent.right.tokenizer.vocabSize })
      // words of TextWorld's commands and of ALFWorld's, each one token after a space (not spelled)
      for (const word of ['unlock', 'take', 'open', 'north', 'key', 'countertop', 'sinkbasin'])
        expect(agent.right.tokenizer.encode(`go ${word}`), word).toHaveLength(2)
    } finally {
      agent.right.dispose()
    }
  })

  it("writes the games' commands, not a plan: greedy on validation games of w2-o3-q4 mostly valid, no win", async () => {
    const checked = Recipe.decode({
      name: 'base-check',
      stages: [{ kind: 'sft', env: { kind: 'textworld', settings: 'w2-o3-q4' }, episodes: 1 }],
      rollout: { maxNewTokens: 10, systemPrompt: '' },
      eval: { episodes: 8, batch: 8, split: 'validation', envs: [{ kind: 'textworld', settings: 'w2-o3-q4' }] }
    })
    if (E.isLeft(checked)) throw new Error(checked.left)
    const target: Evaluation.Target = { recipe: checked.right, model: { kind: 'base', path: base } }
    const summaries = await Evaluation.run()(target)()
    if (E.isLeft(summaries)) throw new Error(summaries.left.message)
    const [summary] = summaries.right
    // measured on 50 games: 16% invalid; an untrained model's commands are all invalid
    expect(summary!.invalidRate).toBeLessThan(0.4)
    expect(summary!.successRate).toBe(0)
  }, 120_000)

  it('the paper-base recipes start from it', () => {
    for (const name of ['few-demos-from-base.json', 'sft-rl-budget-from-base.json', 'complexity-transfer-from-base.json'])
      expect((recipe(join('paper-base', name)) as { model: unknown }).model, name).toEqual({ kind: 'base', path: 'models/base' })
  })
})
