import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as Command from '../src/Command.js'
import * as _ from '../src/Game.js'
import * as Scene from '../src/Scene.js'
import { game, reachable, walk } from './helpers.js'

/** Every command over the scene's names (the whole command space). */
const allCommands = (state: _.State): Command.Command[] => {
  const { scene } = state.game
  const rs = scene.receptacles.map((_r, i) => i)
  const os = scene.objects.map((_o, i) => i)
  return [
    ...rs.flatMap((r): Command.Command[] => [
      { _tag: 'GoTo', receptacle: r },
      { _tag: 'Open', receptacle: r },
      { _tag: 'Close', receptacle: r },
      { _tag: 'ExamineReceptacle', receptacle: r },
      ...os.flatMap((o): Command.Command[] => [
        { _tag: 'Take', object: o, receptacle: r },
        { _tag: 'Move', object: o, receptacle: r },
        { _tag: 'Heat', object: o, receptacle: r },
        { _tag: 'Cool', object: o, receptacle: r },
        { _tag: 'Clean', object: o, receptacle: r }
      ])
    ]),
    ...os.flatMap((o): Command.Command[] => [
      { _tag: 'Use', object: o },
      { _tag: 'ExamineObject', object: o },
      ...os.map((k): Command.Command => ({ _tag: 'Slice', object: o, tool: k }))
    ]),
    { _tag: 'Look' },
    { _tag: 'Inventory' }
  ]
}

describe('Game', () => {
  it('invalid commands never change the state', () => {
    fc.assert(
      fc.property(reachable(), fc.array(fc.string({ maxLength: 30 }), { maxLength: 5 }), (state, junk) => {
        for (const command of allCommands(state)) {
          const outcome = _.apply(command)(state)
          if (!outcome.valid) {
            expect(outcome.state).toBe(state)
            expect(outcome.feedback).toBe('Nothing happens.')
          }
        }
        for (const text of junk) {
          const outcome = _.step(text)(state)
          if (!outcome.valid) expect(outcome.state).toBe(state)
        }
        for (const text of ['go to nowhere 1', 'take', 'open the door', 'dance']) {
          const outcome = _.step(text)(state)
          expect(outcome.valid).toBe(false)
          expect(outcome.state).toBe(state)
        }
      }),
      { numRuns: 50 }
    )
  })

  it('admissible commands are exactly the valid ones (examining visible clutter aside)', () => {
    fc.assert(
      fc.property(reachable(), (state) => {
        const admissible = new Set(_.admissible(state))
        for (const command of allCommands(state)) {
          const text = Command.render(state.game.scene)(command)
          const valid = _.apply(command)(state).valid
          if (command._tag === 'ExamineObject' && command.object !== state.holding) continue
          expect(valid, text).toBe(admissible.has(text))
        }
        for (const text of admissible) expect(_.step(text)(state).valid, text).toBe(true)
      }),
      { numRuns: 50 }
    )
  })

  it('is deterministic: the same commands from the same game give the same states and texts', () => {
    fc.assert(
      fc.property(game(), fc.array(fc.nat(), { maxLength: 40 }), (g, picks) => {
        expect(walk(_.start(g), picks)).toEqual(walk(_.start(Scene.generate(g.split, [g.task.type])(g.seed)), picks))
      }),
      { numRuns: 100 }
    )
  })

  it('subgoal progress never decreases and stays within maxScore', () => {
    fc.assert(
      fc.property(game(), fc.array(fc.nat(), { maxLength: 40 }), (g, picks) => {
        let s = _.start(g)
        expect(_.won(s)).toBe(false)
        expect(_.score(s)).toBe(0)
        for (const p of picks) {
          const options = _.admissible(s)
          const next = _.step(options[p % options.length]!)(s).state
          expect(next.progress & s.progress).toBe(s.progress)
          expect(_.score(next)).toBeLessThanOrEqual(_.maxScore(next))
          if (_.won(next)) expect(_.score(next)).toBe(_.maxScore(next))
          s = next
        }
      }),
      { numRuns: 100 }
    )
  })

  it('answers in ALFWorld manner', () => {
    const g = Scene.generate('train', ['pick_clean_then_place_in_recep'])(11)
    const s0 = _.start(g)
    expect(_.intro(s0)).toMatch(
      /^You are in the middle of a room\. Looking quickly around you, you see a [a-z]+ 1, .*, and a [a-z]+ \d+\.\n\nYour task is to: put a clean [a-z]+ in [a-z]+\.$/
    )
    const closed = g.scene.receptacles.findIndex((r, i) => r.openable && !g.scene.opened[i])
    const name = g.scene.receptacles[closed]!.name
    const arrived = _.step(`go to ${name}`)(s0)
    expect(arrived.feedback).toBe(`You arrive at ${name}. The ${name} is closed.`)
    expect(_.step(`go to ${name}`)(arrived.state).feedback).toBe('Nothing happens.')
    const opened = _.step(`open ${name}`)(arrived.state)
    expect(opened.feedback).toMatch(new RegExp(`^You open the ${name}\\. The ${name} is open\\. In it, you see (nothing|a .+)\\.$`))
    expect(_.step(`close ${name}`)(opened.state).feedback).toBe(`You close the ${name}.`)
    expect(_.step('inventory')(s0).feedback).toBe('You are not carrying anything.')
    const x = g.scene.objects.findIndex((o) => o.type === g.task.object)
    const at = g.scene.receptacles[g.scene.objectAt[x]!]!
    let s = _.step(`go to ${at.name}`)(s0).state
    if (at.openable) s = _.step(`open ${at.name}`)(s).state
    const take = _.step(`take ${g.scene.objects[x]!.name} from ${at.name}`)(s)
    expect(take.feedback).toBe(`You pick up the ${g.scene.objects[x]!.name} from the ${at.name}.`)
    expect(_.step('inventory')(take.state).feedback).toBe(`You are carrying: a ${g.scene.objects[x]!.name}.`)
    expect(_.step(`take ${g.scene.objects[x]!.name} from ${at.name}`)(take.state).valid).toBe(false)
  })

  it("lists receptacle contents with ALFWorld's commas", () => {
    fc.assert(
      fc.property(game(), (g) => {
        const s0 = _.start(g)
        g.scene.receptacles.forEach((r, i) => {
          if (r.openable) return
          const text = _.step(`go to ${r.name}`)(s0).feedback
          const n = g.scene.objectAt.filter((at) => at === i).length
          if (n === 0) expect(text).toBe(`You arrive at ${r.name}. On the ${r.name}, you see nothing.`)
          if (n === 1) expect(text).toMatch(new RegExp(`^You arrive at ${r.name}\\. On the ${r.name}, you see a [a-z]+ \\d+\\.$`))
          if (n >= 2) expect(text).toMatch(new RegExp(`, and a [a-z]+ \\d+\\.$`))
        })
      }),
      { numRuns: 50 }
    )
  })
})
