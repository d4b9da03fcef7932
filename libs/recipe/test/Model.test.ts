import { Settings, TextWorld } from '@mtrl/env-textworld'
import { TestBackend } from '@mtrl/testing'
import * as E from 'fp-ts/lib/Either.js'
import { beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Model.js'
import * as Recipe from '../src/Recipe.js'

beforeAll(() => TestBackend.use('cpu'))

describe('Model', () => {
  it("a scratch model gets a word tokenizer of its environments' expert text and the recipe's sizes", async () => {
    const resolved = Recipe.resolve({ name: 'm', stages: [], model: { kind: 'scratch', dModel: 16, layers: 1, heads: 2, maxLen: 128, corpusEpisodes: 5 } })
    if (resolved.model.kind !== 'scratch') throw new Error('expected a scratch model')
    const source = TextWorld.source(Settings.custom(1, 1, 1))
    const agent = await _.scratch(resolved.model, [source], 1)()
    if (E.isLeft(agent)) throw new Error(agent.left.message)
    expect(agent.right.contextLength).toBe(128)
    expect(agent.right.policy.config).toMatchObject({ dModel: 16, layers: 1, vocab: agent.right.tokenizer.vocabSize })
    expect(agent.right.tokenizer.decode(agent.right.tokenizer.encode('go north'))).toBe('go north')
    agent.right.dispose()
    source.dispose()
  })

  it('a pretrained model that cannot be read fails naming its folder', async () => {
    const agent = await _.pretrained({ kind: 'checkpoint', path: '/nonexistent/mtrl-checkpoint' })()
    expect(E.isLeft(agent) && agent.left.message).toMatch(/\/nonexistent\/mtrl-checkpoint/)
  })
})
