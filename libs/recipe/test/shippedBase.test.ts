import { TestBackend } from '@mtrl/testing'
import * as E from 'fp-ts/lib/Either.js'
import { createHash } from 'node:crypto'
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

/** JSON text with object keys sorted. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v
  )
const sha256 = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex')

describe('the shipped base (models/base)', () => {
  it('golden: its files are the bytes its manifest records, built by recipes/base.json as it stands, and its README quotes the same hash', () => {
    const manifest = JSON.parse(readFileSync(join(base, 'manifest.json'), 'utf8')) as { recipeSha256: string; files: Record<string, string> }
    expect(Object.keys(manifest.files).sort()).toEqual(['config.json', 'model.safetensors', 'tokenizer.json'])
    for (const [file, hash] of Object.entries(manifest.files)) expect(sha256(readFileSync(join(base, file))), file).toBe(hash)
    // the recipe that built it (4874ae9), its description aside: a change to recipes/base.json needs a rebuilt base
    const { description: _d, ...built } = recipe('base.json') as Record<string, unknown>
    expect(sha256(canonical(built)), 'recipes/base.json changed: rebuild models/base and its manifest').toBe(manifest.recipeSha256)
    const weights = manifest.files['model.safetensors']!
    expect(readFileSync(join(base, 'README.md'), 'utf8')).toContain(`\`${weights.slice(0, 8)}...${weights.slice(-6)}\``)
  })

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
