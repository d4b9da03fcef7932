import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { describe, expect, it } from 'vitest'
import * as Settings from '../src/Settings.js'
import * as _ from '../src/TextWorld.js'

const run = async <A>(te: () => Promise<E.Either<unknown, A>>): Promise<A> => {
  const r = await te()
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  return r.right
}

describe('TextWorld', () => {
  it('has a spec named after the setting with twice the optimal plan as turn budget', () => {
    expect(_.make(Settings.custom(2, 3, 4)).spec).toMatchObject({ name: 'textworld/w2-o3-q4', maxTurns: 8 })
    expect(_.make(Settings.custom(4, 6, 8)).spec.maxTurns).toBe(16)
    expect(_.make(Settings.cooking('dense', 'detailed')).spec).toMatchObject({ name: 'textworld/tw-simple-dense-detailed', maxTurns: 24 })
    expect(_.actionFormat).toMatch(/unlock X with K/)
  })

  it('is won by following expertAction from reset, with rewards summing to maxScore', async () => {
    for (const settings of [Settings.custom(2, 3, 4), Settings.custom(4, 6, 8), Settings.cooking('balanced', 'brief')])
      for (let seed = 0; seed < 20; seed++) {
        const env = _.make(settings)
        const first = await run(env.reset(seed))
        expect(first.info.admissibleActions).toContain('look')
        let total = 0
        let last: { won: boolean; done: boolean; info: { score: number; maxScore: number } } | undefined
        for (let turn = 0; turn < env.spec.maxTurns && last?.done !== true; turn++) {
          const action = O.getOrElse(() => 'look')(_.expertAction(env))
          last = await run(env.step(action))
          total += (last as unknown as { reward: number }).reward
        }
        expect(last).toMatchObject({ won: true, done: true })
        expect(total).toBe(last!.info.maxScore - first.info.score)
        expect(_.expertAction(env)).toEqual(O.none)
      }
  })

  it('gives the same observations for the same seed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 1e9 }),
        fc.array(fc.constantFrom('look', 'go north', 'go east', 'inventory', 'take key', 'open door'), { maxLength: 6 }),
        async (seed, actions) => {
          const play = async (): Promise<string[]> => {
            const env = _.make(Settings.custom(4, 6, 8))
            const texts = [JSON.stringify(await run(env.reset(seed)))]
            for (const a of actions) texts.push(JSON.stringify(await run(env.step(a))))
            return texts
          }
          expect(await play()).toEqual(await play())
        }
      ),
      { numRuns: 50 }
    )
  })

  it('reports invalid actions with valid = false and refuses to step before reset or after the end', async () => {
    const env = _.make(Settings.cooking('sparse', 'none'), { admissible: false })
    expect(await env.step('look')()).toEqual(E.left({ _tag: 'NotStarted', env: 'textworld/tw-simple-sparse-none' }))
    const first = await run(env.reset(1))
    expect(first.goal).toBe('')
    expect(first.info.admissibleActions).toBeUndefined()
    const bad = await run(env.step('fly away'))
    expect(bad).toMatchObject({ reward: 0, done: false, won: false, info: { valid: false } })
    for (const a of O.getOrElse((): ReadonlyArray<string> => [])(_.expertPlan(env))) await run(env.step(a))
    expect(await env.step('look')()).toEqual(E.left({ _tag: 'EpisodeOver', env: 'textworld/tw-simple-sparse-none' }))
    await env.close()()
    expect(env.state()).toEqual(O.none)
  })

  it('exposes the game of a setting and seed, failing for settings it cannot generate', () => {
    expect(E.isRight(_.gameFor(Settings.custom(2, 3, 4))(5))).toBe(true)
    expect(E.isLeft(_.gameFor({ _tag: 'custom', rooms: 0, objects: 1, questLength: 2 })(5))).toBe(true)
  })

  it('source: its expert plan wins from the start, and is empty before reset', async () => {
    const source = _.source(Settings.custom(2, 3, 4))
    const env = source.make()
    expect(source.expertPlan?.(env)).toEqual([])
    expect(source.name).toBe(_.spec(Settings.custom(2, 3, 4)).name)
    for (const seed of [1, 2, 3]) {
      await run(env.reset(seed))
      let last
      for (const action of source.expertPlan?.(env) ?? []) last = await run(env.step(action))
      expect(last?.won).toBe(true)
    }
  })
})
