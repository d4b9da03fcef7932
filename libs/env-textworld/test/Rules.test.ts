import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DIRECTIONS, maxScore, score, stateKey, type Game, type State } from '../src/Game.js'
import * as _ from '../src/Rules.js'
import { cookingSettings, customSettings, gameOf, randomState, replay } from './fixtures.js'

const seed = fc.integer({ min: 0, max: 2 ** 31 - 1 })

/** Every command of the canonical grammar over a game's names. */
const allCommands = (game: Game): string[] => {
  const names = game.entities.map((e) => e.name)
  const out = ['look', 'inventory', ...DIRECTIONS.map((d) => `go ${d}`)]
  for (const a of names) {
    for (const verb of ['take', 'drop', 'open', 'close', 'eat', 'examine']) out.push(`${verb} ${a}`)
    for (const b of names) out.push(`take ${a} from ${b}`, `put ${a} on ${b}`, `insert ${a} into ${b}`, `unlock ${a} with ${b}`, `lock ${a} with ${b}`)
  }
  return out
}

/** `take X` is also valid (leniently) for an item on a supporter or in an open container. */
const lenientTake = (game: Game, state: State, command: string): boolean => {
  const m = /^take (.+)$/.exec(command)
  return m !== null && !m[1]!.includes(' from ') && _.admissible(game, state).some((a) => a.startsWith(`take ${m[1]!} from `))
}

describe('Rules', () => {
  for (const [name, runs] of [
    ['w2-o3-q4', 30],
    ['tw-simple-dense-detailed', 5]
  ] as const)
    it(`${name}: a canonical command is valid exactly when it is admissible, and invalid ones never change the state`, () => {
      fc.assert(
        fc.property(seed, fc.integer({ min: 0, max: 25 }), (n, steps) => {
          const game = gameOf(name, n)
          const state = randomState(game, n, steps)
          const before = stateKey(state)
          const admissible = new Set(_.admissible(game, state))
          for (const command of allCommands(game)) {
            const out = _.step(game)(state, command)
            expect(out.valid, command).toBe(admissible.has(command) || lenientTake(game, state, command))
            if (!out.valid) {
              expect(out.state).toBe(state)
              expect(out.reward).toBe(0)
            }
          }
          expect(stateKey(state)).toBe(before)
        }),
        { numRuns: runs }
      )
    })

  it('arbitrary text never changes the state unless valid, and is answered', () => {
    const game = gameOf('w4-o6-q8', 3)
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 0, max: 20 }), (text, steps) => {
        const state = randomState(game, steps, steps)
        const out = _.step(game)(state, text)
        expect(out.feedback.length).toBeGreaterThan(0)
        if (!out.valid) expect(stateKey(out.state)).toBe(stateKey(state))
      }),
      { numRuns: 300 }
    )
  })

  for (const name of [...customSettings, ...cookingSettings])
    it(`${name}: reward is the score delta, the score never falls and never exceeds maxScore`, () => {
      fc.assert(
        fc.property(seed, (n) => {
          const game = gameOf(name, n)
          let state = game.initial
          for (let i = 0; i < 30; i++) {
            const actions = _.admissible(game, state)
            if (actions.length === 0) break
            const out = _.step(game)(state, actions[(n + i * 7) % actions.length]!)
            expect(score(out.state) - score(state)).toBe(out.reward)
            expect(out.reward).toBeGreaterThanOrEqual(0)
            expect(score(out.state)).toBeLessThanOrEqual(maxScore(game))
            state = out.state
          }
        }),
        { numRuns: 100 }
      )
    })

  it('is lenient about case, whitespace, "the" and a trailing period', () => {
    const game = gameOf('tw-simple-dense-detailed', 1)
    const holder = game.quest.walkthrough[0]!.replace('open ', '')
    const a = _.step(game)(game.initial, `open ${holder}`)
    const b = _.step(game)(game.initial, `  OPEN   the ${holder.toUpperCase()}. `)
    expect(b.valid).toBe(true)
    expect(stateKey(b.state)).toBe(stateKey(a.state))
    expect(b.feedback).toBe(a.feedback)
  })

  it("answers in TextWorld's manner", () => {
    const game = gameOf('tw-simple-sparse-detailed', 2)
    const s = game.initial
    expect(_.step(game)(s, 'dance').feedback).toBe("That's not a verb I recognise.")
    expect(_.step(game)(s, 'take unicorn').feedback).toBe("You can't see any such thing.")
    expect(_.step(game)(s, 'go north').feedback).toBe("You can't go that way.")
    expect(_.step(game)(s, 'go east').feedback).toBe('You have to open the wooden door first.')
    expect(_.step(game)(s, 'open wooden door').feedback).toBe('It seems to be locked.')
    expect(_.step(game)(s, 'look').feedback).toMatch(/^-= Bedroom =-\n/)
    expect(_.step(game)(s, 'inventory').feedback).toBe('You are carrying nothing.')
    const holder = game.quest.walkthrough[0]!.replace('open ', '')
    const opened = _.step(game)(s, `open ${holder}`)
    expect(opened.feedback).toBe(`You open the ${holder}, revealing an old key.`)
    expect(_.step(game)(opened.state, `take old key from ${holder}`).feedback).toBe(`You pick up the old key from the ${holder}.`)
  })

  it('eating the food that had to be placed loses and ends the episode', () => {
    const game = gameOf('tw-simple-balanced-detailed', 5)
    const food = /^put (.+) on stove$/.exec(game.quest.walkthrough[game.quest.walkthrough.length - 1]!)![1]!
    const beforePut = replay(game, game.initial, game.quest.walkthrough.slice(0, -1)).state
    const out = _.step(game)(beforePut, `eat ${food}`)
    expect(out).toMatchObject({ valid: true, won: false, lost: true })
    expect(out.feedback).toMatch(/You lost!/)
    expect(_.admissible(game, out.state)).toEqual([])
    expect(_.step(game)(out.state, 'look').valid).toBe(false)
  })

  it('generated games whose goal item is food lose when it is eaten', () => {
    let checked = 0
    for (let n = 0; n < 200 && checked < 5; n++) {
      const game = gameOf('w2-o3-q4', n)
      const { goal, lose } = game.quest
      if (lose === undefined || goal._tag !== 'Placed') continue
      const beforePut = replay(game, game.initial, game.quest.walkthrough.slice(0, -1)).state
      expect(_.step(game)(beforePut, `eat ${game.entities[goal.item]!.name}`).lost).toBe(true)
      checked++
    }
    expect(checked).toBe(5)
  })
})
