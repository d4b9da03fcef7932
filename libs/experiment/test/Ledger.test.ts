import * as E from 'fp-ts/lib/Either.js'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Ledger.js'
import type * as TestLooks from '../src/TestLooks.js'

const root = mkdtempSync(join(tmpdir(), 'mtrl-ledger-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const context: _.Context = {
  recipe: 'r',
  recipeHash: 'aaaaaaaaaaaaaaaa',
  seed: 1,
  run: 'runs/r-1',
  phase: 'after stage 1 (sft on textworld/w2-o3-q4)',
  checkpoint: 'c1c1c1c1c1c1c1c1',
  temperature: 0,
  samplingSeed: 1001,
  backend: 'cpu',
  via: 'run'
}
const summary = (env: string, successRate: number, first = 4_000_000_000) =>
  ({
    env,
    episodes: 100,
    successRate,
    ci95: { low: 0, high: 1 },
    turnsMean: 1,
    returnMean: 1,
    invalidRate: 0,
    perTaskType: {},
    seeds: { split: 'test', first, count: 100 }
  }) as const

describe('Ledger', () => {
  it('the path is MTRL_LEDGER, else results/test-looks.jsonl', () => {
    expect(_.path({})).toBe('results/test-looks.jsonl')
    expect(_.path({ MTRL_LEDGER: '/tmp/x.jsonl' })).toBe('/tmp/x.jsonl')
  })

  it('one look per summary on test seeds (validation ones left out), dated and at a commit', () => {
    const looks = _.looksOf(context, new Date('2026-12-06T04:00:00Z'))([summary('a', 0.5), summary('b', 0.25, 3_500_000_000)])
    expect(looks).toHaveLength(1)
    expect(looks[0]).toMatchObject({ ...context, env: 'a', firstSeed: 4_000_000_000, episodes: 100, successRate: 0.5, date: '2026-12-06T04:00:00.000Z' })
    expect(looks[0]!.commit).toMatch(/^([0-9a-f]{40}\+?|unknown)$/)
  })

  it('records new looks, skips repeats, and appends a mismatch with an error naming both figures', () => {
    const file = join(root, 'a', 'test-looks.jsonl')
    const looks = _.looksOf(context)([summary('a', 0.5), summary('b', 0.25)])
    const first = _.record(file)(looks)
    expect(E.isRight(first) && first.right.mismatch).toBe(undefined)
    expect(E.map((ls: ReadonlyArray<TestLooks.Look>) => ls.length)(_.read(file))).toEqual(E.right(2))
    const again = _.record(file)(looks)
    expect(E.isRight(again) && again.right.notes.every((n) => n.includes('reproduces'))).toBe(true)
    expect(E.map((ls: ReadonlyArray<TestLooks.Look>) => ls.length)(_.read(file))).toEqual(E.right(2))
    const other = _.record(file)(_.looksOf(context)([summary('a', 0.51)]))
    expect(E.isRight(other) && other.right.mismatch).toMatch(/gave 50\.0% .* and 51\.0% now/)
    expect(E.map((ls: ReadonlyArray<TestLooks.Look>) => ls.map((l) => l.successRate))(_.read(file))).toEqual(E.right([0.5, 0.25, 0.51]))
  })

  it('a line that does not decode is an error naming the file, line and field', () => {
    const file = join(root, 'bad.jsonl')
    const good = JSON.stringify(_.looksOf(context)([summary('a', 0.5)])[0])
    writeFileSync(file, `${good}\n${good.replace('"successRate":0.5', '"successRate":"high"')}\n`)
    const r = _.read(file)
    expect(E.isLeft(r) && r.left).toMatch(/bad\.jsonl:2: .*successRate/)
    writeFileSync(file, '{oops\n')
    expect(E.isLeft(_.read(file))).toBe(true)
    expect(_.read(join(root, 'none.jsonl'))).toEqual(E.right([]))
  })

  it('a recipe version ignores its seed, name, description and key order, and changes with what it computes', () => {
    const recipe = { name: 'a', seed: 1, description: 'x', stages: [{ kind: 'sft', steps: 10 }], eval: { split: 'test', episodes: 100 } }
    const h = _.recipeHash(recipe)
    expect(h).toMatch(/^[0-9a-f]{16}$/)
    expect(_.recipeHash({ eval: { episodes: 100, split: 'test' }, stages: [{ steps: 10, kind: 'sft' }], seed: 2, name: 'b' })).toBe(h)
    expect(_.recipeHash({ ...recipe, stages: [{ kind: 'sft', steps: 11 }] })).not.toBe(h)
    expect(_.recipeHash({ ...recipe, eval: { split: 'validation', episodes: 100 } })).not.toBe(h)
  })

  it('a checkpoint hashes what plays: not its optimizer or critic state, nor its stage; its weights and tokenizer do', () => {
    const dir = join(root, 'ckpt')
    mkdirSync(dir)
    const config = (stage: number) =>
      JSON.stringify({ format: 'mtrl-policy', version: 1, model: { dModel: 8 }, lora: null, tokenizer: 'mtrl-word', optimizer: null, extra: { stage } })
    writeFileSync(join(dir, 'config.json'), config(0))
    writeFileSync(join(dir, 'model.safetensors'), new Uint8Array([1, 2, 3]))
    writeFileSync(join(dir, 'tokenizer.json'), '{"words":[]}')
    const h = _.checkpointHash(dir)
    expect(h).toMatch(/^[0-9a-f]{16}$/)
    const copy = join(root, 'copy')
    cpSync(dir, copy, { recursive: true })
    writeFileSync(join(copy, 'config.json'), config(3))
    writeFileSync(join(copy, 'optimizer.safetensors'), new Uint8Array([9]))
    writeFileSync(join(copy, 'critic.safetensors'), new Uint8Array([9]))
    expect(_.checkpointHash(copy)).toBe(h)
    writeFileSync(join(copy, 'model.safetensors'), new Uint8Array([1, 2, 4]))
    expect(_.checkpointHash(copy)).not.toBe(h)
    writeFileSync(join(dir, 'tokenizer.json'), '{"words":["a"]}')
    expect(_.checkpointHash(dir)).not.toBe(h)
    expect(_.checkpointHash(join(root, 'missing'))).toBe(undefined)
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(config(0))
  })

  it('a scratch model is named by its recipe version and seed', () => {
    expect(_.scratchCheckpoint('a', 1)).toBe(_.scratchCheckpoint('a', 1))
    expect(_.scratchCheckpoint('a', 1)).not.toBe(_.scratchCheckpoint('a', 2))
    expect(_.scratchCheckpoint('a', 1)).toMatch(/^scratch-[0-9a-f]{16}$/)
  })
})
