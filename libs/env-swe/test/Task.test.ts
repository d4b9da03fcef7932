/**
 * The task stream's contract, over random seeds and every tier: the original passes, the
 * mutant fails at least one test, and the gold patch (applied as the agent would, with `edit`)
 * restores a full pass in the sandbox. Sized to stay within the lib's time budget: each task
 * costs a few sandboxed test runs of ~0.1-0.2 s.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import * as Corpus from '../src/Corpus.js'
import * as Mutation from '../src/Mutation.js'
import * as Pool from '../src/Pool.js'
import { defaultLimits } from '../src/Sandbox.js'
import * as Suite from '../src/Suite.js'
import * as _ from '../src/Task.js'
import * as Workspace from '../src/Workspace.js'

const pool = Pool.make(2)
const limits = { ...defaultLimits, timeoutMs: 4000 }
const generator = _.makeGenerator({ pool, limits })
afterAll(() => pool.dispose())

const ok = <A>(e: E.Either<string, A>): A => {
  if (E.isLeft(e)) throw new Error(e.left)
  return e.right
}

const goldRestores = async (task: _.Task): Promise<void> => {
  const ws = Workspace.make(task.files)
  try {
    for (const edit of task.gold) expect(Workspace.edit(ws.repoDir, edit)).toEqual(E.right(expect.stringContaining('edited')))
    for (const f of task.project.sources) expect(readFileSync(`${ws.repoDir}/${f}`, 'utf8'), f).toBe(task.project.files[f])
    const r = await pool.run(Suite.run({ limits: defaultLimits })(ws, Corpus.testSources(task.project)))()
    if (E.isLeft(r)) throw new Error('sandbox failed')
    expect(Suite.score(task.expected, r.right.outcomes)).toMatchObject({ passed: task.expected.length, failing: [] })
  } finally {
    ws.dispose()
  }
}

const checkTask = async (task: _.Task, tier: _.Tier): Promise<void> => {
  expect(task.tier).toBe(tier)
  expect(task.failing.length).toBeGreaterThan(0)
  expect(task.expected.length).toBeGreaterThan(task.failing.length - 1)
  const files = new Set(task.mutations.map((m) => m.file))
  if (tier === 'easy') expect([task.mutations.length, files.size]).toEqual([1, 1])
  if (tier === 'medium') expect([task.mutations.length, files.size]).toEqual([2, 1])
  if (tier === 'hard') expect([task.mutations.length, files.size]).toEqual([2, 2])
  expect(await generator.verify(task.project, [])).toMatchObject({ _tag: 'AllPass' })
  expect(await generator.verify(task.project, task.mutations)).toMatchObject({ _tag: 'SomeFail' })
  expect(task.files).toEqual(Mutation.apply(task.mutations)(task.project.files))
  await goldRestores(task)
}

describe('Task', () => {
  for (const [tier, runs] of [
    ['easy', 8],
    ['medium', 5],
    ['hard', 5]
  ] as const) {
    it(`every ${tier} task: original passes, mutant fails, gold patch restores a full pass`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 0, max: 1_000_000 }), async (seed) => {
          await checkTask(ok(await generator.generate(seed, tier)()), tier)
        }),
        { numRuns: runs }
      )
    })
  }

  it('is deterministic: the same seed and tier give the same task, from the cache', async () => {
    const a = ok(await generator.generate(11, 'medium')())
    const before = generator.stats().runs
    const b = ok(await generator.generate(11, 'medium')())
    expect(b.id).toBe(a.id)
    expect(b.mutations).toEqual(a.mutations)
    expect(generator.stats().runs).toBe(before)
  })

  it('keeps verdicts on disk across generators', async () => {
    const dir = mkdtempSync(`${tmpdir()}/mtrl-swe-test-cache-`)
    try {
      const first = _.makeGenerator({ pool, limits, cacheDir: dir, projects: ['roman-numerals'] })
      const a = ok(await first.generate(5, 'easy')())
      expect(readdirSync(dir).length).toBeGreaterThan(0)
      const second = _.makeGenerator({ pool, limits, cacheDir: dir, projects: ['roman-numerals'] })
      const b = ok(await second.generate(5, 'easy')())
      expect(b.mutations).toEqual(a.mutations)
      expect(second.stats().runs).toBe(0)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('verdicts: an equivalent mutant passes, a hanging one is broken, so neither becomes a task', async () => {
    const project = Corpus.byName('roman-numerals')!
    const text = project.files['src/roman.js']!
    const at = (needle: string) => text.indexOf(needle)
    const same: Mutation.Mutation = {
      file: 'src/roman.js',
      operator: 'wrongConstant',
      start: at("'use strict'"),
      line: 1,
      before: "'use strict'",
      after: "'use strict';"
    }
    expect(await generator.verify(project, [same])).toMatchObject({ _tag: 'AllPass' })
    const quick = _.makeGenerator({ pool, limits: { ...limits, timeoutMs: 1000 }, projects: ['roman-numerals'] })
    const hang: Mutation.Mutation = {
      file: 'src/roman.js',
      operator: 'offByOne',
      start: at('let total = 0'),
      line: 1,
      before: 'let total = 0',
      after: 'let total = 0; for (;;) {}'
    }
    expect(await quick.verify(project, [hang])).toEqual({ _tag: 'Broken', reason: 'timeout' })
    // A mutant that crashes the test process reports no tests at all: every test counts as failing.
    const crash: Mutation.Mutation = { ...same, before: "'use strict'", after: "'use strict'; throw new Error('boom')" }
    expect(await generator.verify(project, [crash])).toMatchObject({
      _tag: 'SomeFail',
      failing: ((await generator.verify(project, [])) as { readonly names: ReadonlyArray<string> }).names
    })
  })

  it('verdicts: a mutant that runs away with memory dies at the verification memory and fails every test (it stays a task)', async () => {
    const project = Corpus.byName('roman-numerals')!
    const text = project.files['src/roman.js']!
    const before = "[4, 'IV'], [1, 'I']"
    const runaway: Mutation.Mutation = {
      file: 'src/roman.js',
      operator: 'wrongConstant',
      start: text.indexOf(before),
      line: 6,
      before,
      after: "[4, 'IV'], [0, 'I']"
    }
    // Settings.verifyMemoryMb's default: the mutant dies of memory long before the 4 s verification limit.
    const verifying = _.makeGenerator({ pool, limits: { ...limits, memoryMb: 64 }, projects: ['roman-numerals'] })
    const all = ((await verifying.verify(project, [])) as { readonly names: ReadonlyArray<string> }).names
    expect(await verifying.verify(project, [runaway])).toEqual({ _tag: 'SomeFail', names: all, failing: all })
  })
})
