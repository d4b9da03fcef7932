import { Settings, TextWorld } from '@mtrl/env-textworld'
import { TestBackend } from '@mtrl/testing'
import { Layout } from '@mtrl/rollout'
import * as E from 'fp-ts/lib/Either.js'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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

  it('a scratch model from texts: the words seen twice are words of its tokenizer, the rest is spelled', () => {
    const resolved = Recipe.resolve({ name: 'm', stages: [], model: { kind: 'scratch', dModel: 16, layers: 1, heads: 2, maxLen: 64 } })
    if (resolved.model.kind !== 'scratch') throw new Error('expected a scratch model')
    const agent = _.fromTexts(resolved.model, 0)(['open the chest', 'open the chest', 'a countertop once'])
    expect(agent.tokenizer.encode('open the chest')).toHaveLength(3)
    expect(agent.tokenizer.encode('countertop').length).toBeGreaterThan(1)
    expect(agent.policy.config.vocab).toBe(agent.tokenizer.vocabSize)
    agent.dispose()
  })

  it("replies: an action as it is and as each non-plain format the recipe's rollouts write it", () => {
    expect(_.replies(['plain', 'tool', 'tool'])('go north')).toEqual(['go north', Layout.reply('tool', 'go north')])
    expect(_.replies([])('go north')).toEqual(['go north'])
  })

  it('a base must be an mtrl checkpoint or a run that built one, and says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mtrl-base-'))
    try {
      const notACheckpoint = await _.pretrained({ kind: 'base', path: dir })()
      expect(E.isLeft(notACheckpoint) && notACheckpoint.left.message).toBe(
        `base model: ${dir} is not an mtrl checkpoint (a base is built by a recipe with a pretrain stage, e.g. recipes/base.json)`
      )
      const missing = await _.pretrained({ kind: 'base', path: join(dir, 'nope') })()
      expect(E.isLeft(missing) && missing.left.message).toBe(`base model: ${join(dir, 'nope')}: no such folder`)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
