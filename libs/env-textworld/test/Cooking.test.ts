import fc from 'fast-check'
import * as O from 'fp-ts/lib/Option.js'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Cooking.js'
import * as Expert from '../src/Expert.js'
import { maxScore, score } from '../src/Game.js'
import * as Settings from '../src/Settings.js'
import * as Text from '../src/Text.js'
import { replay } from './fixtures.js'

const seed = fc.integer({ min: 0, max: 2 ** 31 - 1 })
const foodOf = (walkthrough: ReadonlyArray<string>): string => /^put (.+) on stove$/.exec(walkthrough[walkthrough.length - 1]!)![1]!
const placeOf = (walkthrough: ReadonlyArray<string>): 'fridge' | 'couch' | 'garden' =>
  walkthrough.includes('open refrigerator') ? 'fridge' : walkthrough.includes('go south') && !walkthrough.includes('open screen door') ? 'couch' : 'garden'

describe('Cooking', () => {
  it('has six rooms, starts in the bedroom, and its walkthrough (8, 9 or 12 actions) is a shortest winning plan', () => {
    fc.assert(
      fc.property(seed, fc.constantFrom('sparse' as const, 'balanced' as const, 'dense' as const), (n, rewards) => {
        const game = _.make(Settings.cooking(rewards), n)
        expect(game.rooms.map((r) => r.name)).toEqual(['bedroom', 'kitchen', 'living room', 'bathroom', 'backyard', 'garden'])
        expect(Text.describeRoom(game, game.initial)).toMatch(/^-= Bedroom =-/)
        const w = game.quest.walkthrough
        expect(w.length).toBe({ fridge: 8, couch: 9, garden: 12 }[placeOf(w)])
        expect(O.map((p: ReadonlyArray<string>) => p.length)(Expert.plan(game)(game.initial))).toEqual(O.some(w.length))
        const out = replay(game, game.initial, w)
        expect(out.won).toBe(true)
        expect(score(out.state)).toBe(maxScore(game))
      }),
      { numRuns: 300 }
    )
  })

  it("gives the subgoals of TextWorld's reward densities", () => {
    for (let n = 0; n < 60; n++) {
      const place = placeOf(_.make(Settings.cooking('sparse'), n).quest.walkthrough)
      expect(maxScore(_.make(Settings.cooking('sparse'), n))).toBe(1)
      // kitchen + doors on the route + food held (listed twice) + food on stove
      expect(maxScore(_.make(Settings.cooking('balanced'), n))).toBe(place === 'garden' ? 5 : 4)
      // + key container, key, door unlocked, door opened, rooms on the route
      expect(maxScore(_.make(Settings.cooking('dense'), n))).toBe({ fridge: 8, couch: 9, garden: 11 }[place])
    }
  })

  it('hides the old key in the chest drawer or the antique trunk, and uses every food slot', () => {
    const holders = new Set<string>()
    const places = new Set<string>()
    for (let n = 0; n < 100; n++) {
      const w = _.make(Settings.cooking(), n).quest.walkthrough
      holders.add(w[0]!)
      places.add(placeOf(w))
    }
    expect([...holders].sort()).toEqual(['open antique trunk', 'open chest drawer'])
    expect([...places].sort()).toEqual(['couch', 'fridge', 'garden'])
  })

  it('uses unseen food names with the test switch', () => {
    fc.assert(
      fc.property(seed, (n) => {
        const train = foodOf(_.make(Settings.cooking('dense', 'detailed', false), n).quest.walkthrough)
        const test = foodOf(_.make(Settings.cooking('dense', 'detailed', true), n).quest.walkthrough)
        expect(_.trainFoods as ReadonlyArray<string>).toContain(train)
        expect(_.testFoods as ReadonlyArray<string>).toContain(test)
      }),
      { numRuns: 100 }
    )
  })

  it('shows the detailed, brief or no objective; the note in the kitchen always tells the brief one', () => {
    const detailed = _.make(Settings.cooking('dense', 'detailed'), 8)
    const brief = _.make(Settings.cooking('dense', 'brief'), 8)
    const none = _.make(Settings.cooking('dense', 'none'), 8)
    const food = foodOf(brief.quest.walkthrough)
    expect(brief.objective).toBe(`The dinner is almost ready! It's only missing a grilled ${food}.`)
    expect(none.objective).toBe('')
    expect(detailed.objective.split('. ').length).toBeGreaterThanOrEqual(8)
    const note = detailed.entities.find((e) => e.name === 'note')!
    expect(note.description).toBe(brief.objective)
  })
})
