import type { Env } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import * as Edit from '../src/Edit.js'
import * as _ from '../src/Expert.js'
import * as Swe from '../src/Swe.js'

const shared = Swe.resources({ projects: ['query-string', 'semver', 'lru-cache', 'pagination'] }, 2)
afterAll(() => shared.dispose())

const play = async (settings: Parameters<typeof Swe.make>[0], seed: number) => {
  const env = Swe.make(settings, shared)
  const start = await env.reset(seed)()
  if (E.isLeft(start)) throw new Error(JSON.stringify(start.left))
  const steps: Env.StepResult[] = []
  for (const a of _.plan(env.task()!)) {
    const r = await env.step(a)()
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    steps.push(r.right)
  }
  const task = env.task()!
  await env.close()()
  return { steps, task }
}

describe('Expert', () => {
  it('replaying the expert always wins, with every action valid, in every tier', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 10_000 }), fc.constantFrom('easy' as const, 'medium' as const, 'hard' as const), async (seed, tier) => {
        const { steps } = await play({ tier }, seed)
        expect(steps.every((s) => s.info.valid)).toBe(true)
        const last = steps.at(-1)!
        expect(last).toMatchObject({ done: true, won: true, reward: 1, info: { score: 1, maxScore: 1 } })
        expect(last.info.extra?.['passed']).toBe(last.info.extra?.['total'])
      }),
      { numRuns: 4 }
    )
  })

  it('dense rewards sum to the sparse return and pay the improvement at run_tests', async () => {
    const { steps, task } = await play({ tier: 'easy', dense: true }, 21)
    const sum = steps.reduce((a, s) => a + s.reward, 0)
    expect(sum).toBeCloseTo(1, 10)
    const runs = steps.filter((s) => s.observation.includes('tests passed') && !s.done)
    expect(runs[0]!.reward).toBeCloseTo((task.expected.length - task.failing.length) / task.expected.length, 10)
    expect(runs[1]!.reward).toBeCloseTo(task.failing.length / task.expected.length, 10)
    expect(steps.at(-1)!.reward).toBeCloseTo(0, 10)
  })

  it('binary mode pays 1 only when every test passes', async () => {
    const env = Swe.make({ tier: 'easy', reward: 'binary' }, shared)
    if (E.isLeft(await env.reset(21)())) throw new Error('reset')
    const r = await env.step('submit')()
    expect(E.isRight(r) && r.right).toMatchObject({ done: true, won: false, reward: 0 })
    const frac = Swe.make({ tier: 'easy' }, shared)
    if (E.isLeft(await frac.reset(21)())) throw new Error('reset')
    const f = await frac.step('submit')()
    const task = frac.task()!
    expect(E.isRight(f) && f.right.reward).toBeCloseTo((task.expected.length - task.failing.length) / task.expected.length, 10)
    await env.close()()
    await frac.close()()
  })

  it('the turn limit scores the suite as if submitted', async () => {
    const env = Swe.make({ tier: 'easy', maxTurns: 2 }, shared)
    if (E.isLeft(await env.reset(3)())) throw new Error('reset')
    await env.step('ls')()
    const r = await env.step('ls src')()
    expect(E.isRight(r) && r.right).toMatchObject({ done: true, won: false, info: { extra: { truncated: true } } })
    await env.close()()
  })

  it('runs the tests as originally written and restores them before scoring, so editing a test does not pay', async () => {
    const env = Swe.make({ tier: 'easy' }, shared)
    if (E.isLeft(await env.reset(8)())) throw new Error('reset')
    const task = env.task()!
    const test = task.project.tests[0]!
    // Replace the test file by one with the same test names, all trivially passing.
    const names = task.expected.map((q) => q.slice(q.indexOf(' > ') + 3))
    const fake = ["const test = require('node:test')", ...names.map((n) => `test(${JSON.stringify(n)}, () => {})`)].join('\n')
    const r = await env.step(Edit.render({ file: test, blocks: [{ search: task.files[test]!, replace: fake }] }))()
    expect(E.isRight(r) && r.right.info.valid).toBe(true)
    // The cheat changes nothing, neither in the agent's runs...
    const cheat = await env.step('run_tests')()
    const n = task.expected.length
    expect(E.isRight(cheat) && cheat.right.observation).toContain(`${n - task.failing.length}/${n} tests passed`)
    // ...nor on the scored run.
    const f = await env.step('submit')()
    expect(E.isRight(f) && f.right).toMatchObject({ won: false })
    expect(E.isRight(f) && f.right.reward).toBeLessThan(1)
    await env.close()()
  })
})
