import { Decode } from '@mtrl/core'
import { Settings, TextWorld } from '@mtrl/env-textworld'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/ChatLog.js'
import * as Episode from '../src/Episode.js'
import * as Expert from '../src/Expert.js'
import * as LockEnv from './fixtures/LockEnv.js'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'env-http-chatlog-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

const lines = async (path: string): Promise<_.Record[]> =>
  (await readFile(path, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const decoded = Decode.decode('line', _.Record)(JSON.parse(line))
      if (E.isLeft(decoded)) throw new Error(Decode.formatError(decoded.left))
      return decoded.right
    })

describe('ChatLog', () => {
  it('records TextWorld expert episodes as OpenAI chat JSONL, in seed order, with metadata', async () => {
    const path = join(dir, 'expert.jsonl')
    const seeds = [5, 1, 4, 2, 3]
    const settings = Settings.custom(2, 3, 4)
    const summary = await _.collect({
      factory: () => TextWorld.make(settings),
      seeds,
      agent: Expert.fromEnv(TextWorld.expertAction),
      path,
      concurrency: 3,
      meta: { source: 'expert' }
    })()
    expect(summary).toEqual(E.right({ path, written: 5, skipped: 0, won: 5, failed: [] }))
    const records = await lines(path)
    expect(records.map((r) => r.seed)).toEqual(seeds)
    for (const record of records) {
      expect(record).toMatchObject({ env: 'textworld/w2-o3-q4', won: true, truncated: false, source: 'expert' })
      const roles = record.messages.map((m) => m.role)
      expect(roles[0]).toBe('system')
      expect(roles.slice(1)).toEqual(Array.from({ length: 2 * record.turns }, (_, i) => (i % 2 === 0 ? 'user' : 'assistant')))
      expect(record.score).toBe(record.maxScore)
    }
    // The same episode, played again, is the same line.
    const again = await Episode.play()(Expert.fromEnv(TextWorld.expertAction))(TextWorld.make(settings), 4)()
    if (E.isLeft(again)) throw new Error(Episode.message(again.left))
    expect(_.fromEpisode(again.right, { source: 'expert' })).toEqual(records[2])
  })

  it('lists failed episodes instead of writing them, skips the ones `keep` refuses, appends when asked', async () => {
    const path = join(dir, 'mixed.jsonl')
    const plan = (seed: number): ReadonlyArray<string> => (seed === 2 ? ['one'] : seed === 3 ? ['nine', 'nine', 'nine'] : LockEnv.combination(seed))
    const options = { factory: () => LockEnv.make({ maxTurns: 3 }), seeds: [1, 2, 3, 4], agent: Expert.replay(plan), path, keep: (e: Episode.Episode) => e.won }
    const summary = await _.collect(options)()
    expect(E.isRight(summary) && summary.right).toMatchObject({
      written: 2,
      skipped: 1,
      won: 2,
      failed: [{ seed: 2, reason: expect.stringContaining('only 1 actions') }]
    })
    expect((await lines(path)).map((r) => r.seed)).toEqual([1, 4])
    await _.collect({ ...options, seeds: [7], append: true })()
    expect((await lines(path)).map((r) => r.seed)).toEqual([1, 4, 7])
  })

  it('reports a file it cannot write as WriteFailed', async () => {
    const result = await _.collect({
      factory: () => LockEnv.make(),
      seeds: [1],
      agent: Expert.replay(LockEnv.combination),
      path: join(dir, 'missing', 'x.jsonl')
    })()
    expect(E.isLeft(result) && result.left._tag).toBe('WriteFailed')
  })

  it('round-trips any episode line through JSON and the Record codec', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(1000), fc.array(fc.constantFrom(...LockEnv.DIGITS, 'hm'), { maxLength: 6 }), async (seed, actions) => {
        const played = await Episode.play({ maxTurns: actions.length })(Expert.fromActions(actions))(LockEnv.make(), seed)()
        if (E.isLeft(played)) return
        const record = _.fromEpisode(played.right, { run: 'r1' })
        expect(Decode.decode('line', _.Record)(JSON.parse(_.toLine(record)))).toEqual(E.right(record))
      }),
      { numRuns: 40 }
    )
  })
})

describe('ChatLog.agentOf', () => {
  const source = TextWorld.source(Settings.custom(2, 3, 4))
  afterAll(() => source.dispose())

  it("is the source's expert without a model, and its episodes are won", async () => {
    const agent = _.agentOf(source, {})
    if (E.isLeft(agent)) throw new Error(agent.left)
    const path = join(dir, 'agent-of.jsonl')
    const summary = await _.collect({ factory: source.make, seeds: [1, 2], agent: agent.right, path })()
    expect(summary).toEqual(E.right({ path, written: 2, skipped: 0, won: 2, failed: [] }))
    expect(E.isRight(_.agentOf(source, { policy: 'expert' }))).toBe(true)
  })

  it('is the model behind the endpoint with --base-url, which needs --model', () => {
    expect(E.isRight(_.agentOf(source, { chat: { baseUrl: 'http://127.0.0.1:1/v1', model: 'qwen', temperature: 0 } }))).toBe(true)
    expect(_.agentOf(source, { chat: { baseUrl: 'http://127.0.0.1:1/v1' } })).toEqual(E.left('--model is required with --base-url'))
  })

  it('names a policy other than the expert, and a source without one', () => {
    expect(_.agentOf(source, { policy: 'random' })).toEqual(E.left('--policy: expected "expert" (or use --base-url), got "random"'))
    const { expertPlan: _e, ...planless } = source
    expect(_.agentOf(planless, { chat: {} })).toEqual(E.left('textworld/w2-o3-q4 has no expert: record with --base-url'))
  })
})
