import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { Arbitraries } from '@mtrl/testing'
import { describe, expect, it } from 'vitest'
import * as Expert from '../src/Expert.js'
import { maxScore, score, stateKey } from '../src/Game.js'
import * as _ from '../src/Generator.js'
import * as Text from '../src/Text.js'
import { bfsShortest, customSettings, replay, settingsOf } from './fixtures.js'

const seed = Arbitraries.seed

const objectsOf = (game: ReturnType<typeof _.generateOrThrow>): number => game.entities.filter((e) => e.kind !== 'door').length

describe('Generator', () => {
  for (const name of customSettings) {
    const s = settingsOf(name)
    if (s._tag !== 'custom') throw new Error('custom expected')
    const options = (n: number): _.Options => ({ rooms: s.rooms, objects: s.objects, questLength: s.questLength, seed: n })

    it(`${name}: the walkthrough and the expert plan from reset both have questLength actions and win with the full score`, () => {
      fc.assert(
        fc.property(seed, (n) => {
          const game = _.generateOrThrow(options(n))
          expect(game.quest.walkthrough).toHaveLength(s.questLength)
          const plan = O.getOrElse((): ReadonlyArray<string> => [])(Expert.plan(game)(game.initial))
          expect(plan).toHaveLength(s.questLength)
          for (const commands of [game.quest.walkthrough, plan]) {
            const out = replay(game, game.initial, commands)
            expect(out.won).toBe(true)
            expect(score(out.state)).toBe(maxScore(game))
          }
        }),
        { numRuns: 300 }
      )
    })

    it(`${name}: has the rooms, at least the objects, a connected tree map, and quest actions that are never look/examine/inventory`, () => {
      fc.assert(
        fc.property(seed, (n) => {
          const game = _.generateOrThrow(options(n))
          expect(game.rooms).toHaveLength(s.rooms)
          expect(objectsOf(game)).toBeGreaterThanOrEqual(s.objects)
          const edges = Array.from(game.exits).filter((x) => x >= 0).length / 2
          expect(edges).toBe(s.rooms - 1)
          const seen = new Set([0])
          const stack = [0]
          while (stack.length > 0) {
            const r = stack.pop()!
            for (let d = 0; d < 4; d++) {
              const m = game.exits[4 * r + d]!
              if (m >= 0 && !seen.has(m)) {
                seen.add(m)
                stack.push(m)
              }
            }
          }
          expect(seen.size).toBe(s.rooms)
          const side = Math.ceil(Math.sqrt(s.rooms + 1))
          for (const room of game.rooms) expect(room.x < side && room.y < side).toBe(true)
          for (const c of game.quest.walkthrough) expect(c).not.toMatch(/^(look|examine|inventory)/)
          expect(game.quest.subgoals.length).toBeGreaterThanOrEqual(1)
        }),
        { numRuns: 200 }
      )
    })

    it(`${name}: the same seed gives the same game and texts`, () => {
      fc.assert(
        fc.property(seed, (n) => {
          const a = _.generateOrThrow(options(n))
          const b = _.generateOrThrow(options(n))
          expect(stateKey(a.initial)).toBe(stateKey(b.initial))
          expect(a.entities).toEqual(b.entities)
          expect(a.rooms).toEqual(b.rooms)
          expect(a.objective).toBe(b.objective)
          expect(a.quest).toEqual(b.quest)
          expect(Text.describeRoom(a, a.initial)).toBe(Text.describeRoom(b, b.initial))
        }),
        { numRuns: 100 }
      )
    })
  }

  it('different seeds give different games', () => {
    const keys = new Set(
      Array.from({ length: 50 }, (_x, n) => _.generateOrThrow({ rooms: 2, objects: 3, questLength: 4, seed: n }).quest.walkthrough.join('|'))
    )
    expect(keys.size).toBeGreaterThan(25)
  })

  it('the shortest winning plan found by exhaustive BFS over all admissible commands has exactly questLength actions', () => {
    const small: ReadonlyArray<readonly [number, number, number, number]> = [
      [2, 3, 4, 300],
      [1, 2, 3, 100],
      [3, 4, 5, 60],
      [2, 2, 6, 20]
    ]
    for (const [rooms, objects, questLength, runs] of small)
      fc.assert(
        fc.property(seed, (n) => {
          const game = _.generateOrThrow({ rooms, objects, questLength, seed: n })
          expect(bfsShortest(game, game.initial, questLength)).toBe(questLength)
        }),
        { numRuns: runs }
      )
  })

  it('generates quest lengths from 1 to 12 on small and large maps', () => {
    for (const [rooms, lengths] of [
      [1, [1, 2, 5, 8]],
      [3, [1, 2, 7, 12]],
      [12, [1, 3, 9, 12]]
    ] as const)
      for (const questLength of lengths) {
        const game = _.generate({ rooms, objects: 5, questLength, seed: rooms * 100 + questLength })
        expect(E.isRight(game)).toBe(true)
        if (E.isRight(game)) expect(O.map((p: ReadonlyArray<string>) => p.length)(Expert.plan(game.right)(game.right.initial))).toEqual(O.some(questLength))
      }
  })

  it('rejects invalid settings', () => {
    expect(E.isLeft(_.generate({ rooms: 0, objects: 3, questLength: 4, seed: 1 }))).toBe(true)
    expect(E.isLeft(_.generate({ rooms: 2, objects: 3, questLength: 0, seed: 1 }))).toBe(true)
    expect(() => _.generateOrThrow({ rooms: 2, objects: -1, questLength: 4, seed: 1 })).toThrow(/invalid settings/)
  })

  it('honours the objective detail: steps, brief, none', () => {
    const base = { rooms: 2, objects: 3, questLength: 4, seed: 11 }
    const steps = _.generateOrThrow({ ...base, objective: 'steps' })
    const brief = _.generateOrThrow({ ...base, objective: 'brief' })
    const none = _.generateOrThrow({ ...base, objective: 'none' })
    expect(steps.objective.split('. ').length).toBeGreaterThanOrEqual(4)
    expect(brief.objective).toMatch(/^Your objective is to /)
    expect(brief.objective.split('. ')).toHaveLength(1)
    expect(none.objective).toBe('')
    expect(stateKey(steps.initial)).toBe(stateKey(none.initial))
  })
})
