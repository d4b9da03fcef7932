import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as Expert from '../src/Expert.js'
import type { Game, State } from '../src/Game.js'
import * as Generator from '../src/Generator.js'
import * as _ from '../src/IntermediateReward.js'
import * as Rules from '../src/Rules.js'
import * as Settings from '../src/Settings.js'
import * as TextWorld from '../src/TextWorld.js'

const game = (seed: number): Game => Generator.generateOrThrow({ rooms: 2, objects: 3, questLength: 4, seed })
const seeds = Array.from({ length: 30 }, (_s, i) => i + 1)

/** The rewards of playing `commands` from the start, through `after` (the distance carried along). */
const rewards = (g: Game, commands: ReadonlyArray<string>): number[] => {
  let state: State = g.initial
  let distance = Expert.distance(g)(state)
  return commands.map((command) => {
    state = Rules.step(g)(state, command).state
    const next = _.after(g, distance)(state)
    distance = next.distance
    return next.reward
  })
}

/** The command that undoes `take X from Y`: X back into (or onto) Y, whichever the game accepts. */
const putBack = (g: Game, state: State, take: string): string | undefined => {
  const m = /^take (.+) from (.+)$/.exec(take)
  if (m === null) return undefined
  return [`insert ${m[1]} into ${m[2]}`, `put ${m[1]} on ${m[2]}`].find((c) => Rules.step(g)(state, c).valid)
}

describe('IntermediateReward', () => {
  it('pays +1 for every command of the walkthrough (the last one wins)', () => {
    for (const seed of seeds) {
      const g = game(seed)
      expect(rewards(g, g.quest.walkthrough), `seed ${seed}`).toEqual(g.quest.walkthrough.map(() => 1))
    }
  })

  it('pays 0 for a look and for an invalid command, which leave the plan as it was', () => {
    for (const seed of seeds.slice(0, 10)) {
      const g = game(seed)
      expect(rewards(g, ['look', 'fly to the moon', g.quest.walkthrough[0]!])).toEqual([0, 0, 1])
    }
  })

  it('charges -1 for putting the object back where it came from, and pays +1 for taking it again', () => {
    let checked = 0
    for (let seed = 1; seed <= 100; seed++) {
      const g = game(seed)
      const [take] = g.quest.walkthrough
      const afterTake = Rules.step(g)(g.initial, take!).state
      const back = putBack(g, afterTake, take!)
      if (back === undefined) continue
      expect(rewards(g, [take!, back, take!]), `seed ${seed}: ${take} / ${back}`).toEqual([1, -1, 1])
      checked++
    }
    expect(checked).toBeGreaterThan(5)
  })

  it('is what a TextWorld env with reward "intermediate" gives, while info.score stays the score', async () => {
    const g = game(3)
    const commands = ['look', g.quest.walkthrough[0]!, 'go nowhere', ...g.quest.walkthrough.slice(1)]
    for (const reward of ['score', 'intermediate'] as const) {
      const env = TextWorld.make(Settings.custom(2, 3, 4), { reward, admissible: false })
      const start = await env.reset(3)()
      expect(E.isRight(start)).toBe(true)
      const steps: Array<{ readonly reward: number; readonly won: boolean; readonly info: { readonly score: number; readonly maxScore: number } }> = []
      for (const c of commands) {
        const r = await env.step(c)()
        if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
        steps.push(r.right)
      }
      if (reward === 'intermediate') expect(steps.map((s) => s.reward)).toEqual(rewards(g, commands))
      else expect(steps.map((s) => s.reward)).toEqual(commands.map((_c, k) => steps[k]!.info.score - (k === 0 ? 0 : steps[k - 1]!.info.score)))
      expect(steps[steps.length - 1]!.won).toBe(true)
      expect(steps[steps.length - 1]!.info.score).toBe(steps[steps.length - 1]!.info.maxScore)
    }
  })
})
