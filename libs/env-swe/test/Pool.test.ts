import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Pool.js'
import * as Swe from '../src/Swe.js'

describe('Pool', () => {
  it('never runs more than size tasks at once and runs them all', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 20 }), async (size, delays) => {
        const pool = _.make(size)
        let running = 0
        let most = 0
        const task =
          (d: number, i: number): TE.TaskEither<never, number> =>
          async () => {
            running++
            most = Math.max(most, running)
            await new Promise((r) => setTimeout(r, d))
            running--
            return E.right(i)
          }
        const out = await Promise.all(delays.map((d, i) => pool.run(task(d, i))()))
        expect(out).toEqual(delays.map((_d, i) => E.right(i)))
        expect(most).toBeLessThanOrEqual(size)
        expect(pool.peak()).toBe(most)
        expect(pool.active()).toBe(0)
      }),
      { numRuns: 30 }
    )
  })

  it('releases its slot when a task throws', async () => {
    const pool = _.make(1)
    await expect(pool.run(() => Promise.reject(new Error('x')))()).rejects.toThrow('x')
    expect(await pool.run(TE.right(1))()).toEqual(E.right(1))
  })

  it('runs several episodes in parallel without interference', async () => {
    const shared = Swe.resources({ tier: 'easy', projects: ['ledger', 'stats', 'run-length', 'bitset'] }, 2)
    const envs = [0, 1, 2, 3].map(() => Swe.make({ tier: 'easy' }, shared))
    const ok = <A>(e: E.Either<unknown, A>): A => {
      if (E.isLeft(e)) throw new Error(JSON.stringify(e.left))
      return e.right
    }
    await Promise.all(envs.map((env, i) => env.reset(100 + i)()))
    // Each episode writes a marker into its own repository; the others must not see it.
    await Promise.all(envs.map((env, i) => env.step(`edit marker${i}.txt\n<<<<<<< SEARCH\n=======\nepisode ${i}\n>>>>>>> REPLACE`)()))
    const listings = await Promise.all(envs.map((env) => env.step('ls')()))
    listings.forEach((l, i) => {
      const text = ok(l).observation
      expect(text).toContain(`marker${i}.txt`)
      for (let j = 0; j < 4; j++) if (j !== i) expect(text).not.toContain(`marker${j}.txt`)
    })
    const runs = (await Promise.all(envs.map((env) => env.step('run_tests')()))).map(ok)
    runs.forEach((r, i) => {
      const task = envs[i]!.task()!
      expect(r.observation).toContain(`${task.expected.length - task.failing.length}/${task.expected.length} tests passed`)
    })
    expect(shared.pool.peak()).toBeLessThanOrEqual(2)
    await Promise.all(envs.map((env) => env.close()()))
    shared.dispose()
  })
})
