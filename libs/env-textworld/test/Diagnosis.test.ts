import * as O from 'fp-ts/lib/Option.js'
import { describe, expect, it } from 'vitest'
import * as Diagnosis from '../src/Diagnosis.js'
import { DIRECTIONS, PLAYER, type Game } from '../src/Game.js'
import * as Generator from '../src/Generator.js'
import * as Rules from '../src/Rules.js'
import { parse } from '../src/Command.js'

const game = (seed: number): Game => Generator.generateOrThrow({ rooms: 2, objects: 3, questLength: 4, seed })
const kindOf = (d: Diagnosis.Diagnosis) => O.map((m: { readonly turn: number; readonly kind: Diagnosis.Mistake }) => [m.turn, m.kind] as const)(d.firstMistake)
const seeds = Array.from({ length: 30 }, (_, i) => i + 1)

/** The walkthrough's final command (put / insert) and whether its holder is in the start room. */
const finalStep = (g: Game) => {
  const command = g.quest.walkthrough[g.quest.walkthrough.length - 1]!
  const parsed = parse(g)(command)
  if (parsed._tag !== 'Put' && parsed._tag !== 'Insert') return undefined // e.g. "eat apple"
  const reachable = [parsed.item, parsed.holder].every((e) => Rules.reach(g, g.initial, e) !== undefined)
  return { command, reachable }
}

describe('Diagnosis', () => {
  it('finds no mistake in the walkthrough of any game, and the walkthrough wins', () => {
    for (const seed of seeds) {
      const d = Diagnosis.diagnose(game(seed))(game(seed).quest.walkthrough)
      expect(d.won, `seed ${seed}`).toBe(true)
      expect(O.isNone(d.firstMistake), `seed ${seed}`).toBe(true)
      expect(d.commands).toBe(4)
    }
  })

  it('a look inserted at turn k is a detour at turn k, and the game is still won', () => {
    for (const seed of seeds.slice(0, 10)) {
      const g = game(seed)
      for (let k = 0; k < 4; k++) {
        const commands = [...g.quest.walkthrough.slice(0, k), 'look', ...g.quest.walkthrough.slice(k)]
        const d = Diagnosis.diagnose(g)(commands)
        expect(kindOf(d)).toEqual(O.some([k, 'detour']))
        expect(d.won).toBe(true)
      }
    }
  })

  it('names the kind of an invalid first mistake: unparsed, unknown name, no exit', () => {
    const g = game(3)
    const [first, ...rest] = g.quest.walkthrough
    expect(kindOf(Diagnosis.diagnose(g)([first!, 'dance wildly', ...rest]))).toEqual(O.some([1, 'unparsed']))
    expect(kindOf(Diagnosis.diagnose(g)([first!, 'take zorkmid', ...rest]))).toEqual(O.some([1, 'unknown-name']))
    const room = g.initial[PLAYER]!
    const wall = DIRECTIONS.findIndex((_, dir) => g.exits[4 * room + dir]! < 0)
    expect(kindOf(Diagnosis.diagnose(g)([`go ${DIRECTIONS[wall]}`]))).toEqual(O.some([0, 'no-exit']))
  })

  it("the goal's last step tried first is `elsewhere` when what it names is out of reach, `not-ready` when it is all here", () => {
    const kinds = new Set<string>()
    const oneRoom = (seed: number): Game => Generator.generateOrThrow({ rooms: 1, objects: 3, questLength: 2, seed })
    for (const g of [...seeds.map(game), ...seeds.map(oneRoom)]) {
      const seed = g.seed
      const step = finalStep(g)
      if (step === undefined) continue
      const { command, reachable } = step
      const d = Diagnosis.diagnose(g)([command])
      expect(kindOf(d), `seed ${seed}: ${command}`).toEqual(O.some([0, reachable ? 'not-ready' : 'elsewhere']))
      kinds.add(reachable ? 'not-ready' : 'elsewhere')
    }
    expect(kinds).toEqual(new Set(['not-ready', 'elsewhere'])) // both cases occur among these seeds
  })

  it('keeps the first mistake when later ones follow, and ignores commands after the end', () => {
    const g = game(5)
    const d = Diagnosis.diagnose(g)(['look', 'take zorkmid', ...g.quest.walkthrough, 'dance'])
    expect(kindOf(d)).toEqual(O.some([0, 'detour']))
    expect(d.won).toBe(true)
    expect(d.commands).toBe(6)
  })

  it('names the quest by the verb of its last command, and tallies success per quest ending', () => {
    const ends = new Set<string>()
    const all = seeds.map((seed) => {
      const g = game(seed)
      const d = Diagnosis.diagnose(g)(seed % 2 === 0 ? g.quest.walkthrough : ['look'])
      expect(g.quest.walkthrough[3]!.startsWith(`${d.questEnd} `)).toBe(true)
      ends.add(d.questEnd)
      return d
    })
    const t = Diagnosis.tally(all)
    expect(new Set(t.byQuestEnd.map((e) => e.questEnd))).toEqual(ends)
    expect(t.byQuestEnd.reduce((a, e) => a + e.episodes, 0)).toBe(seeds.length)
    expect(t.byQuestEnd.reduce((a, e) => a + e.won, 0)).toBe(seeds.length / 2)
    expect(t.byQuestEnd.map((e) => e.episodes)).toEqual([...t.byQuestEnd.map((e) => e.episodes)].sort((a, b) => b - a))
  })

  it('tallies lost games by their first mistake, and won games that recovered from one', () => {
    const g = game(2)
    const w = g.quest.walkthrough
    const t = Diagnosis.tally([
      Diagnosis.diagnose(g)(w), // clean win
      Diagnosis.diagnose(g)(['look', ...w]), // recovered
      Diagnosis.diagnose(g)([w[0]!, 'take zorkmid', 'take zorkmid']), // lost, unknown name at turn 1
      Diagnosis.diagnose(g)(['dance', 'dance', 'dance']) // lost, unparsed at turn 0
    ])
    expect(t).toEqual({
      episodes: 4,
      won: 2,
      lost: 2,
      firstMistakes: { 'unknown-name': 1, unparsed: 1, elsewhere: 0, 'not-ready': 0, 'no-exit': 0, detour: 0 },
      meanMistakeTurn: 0.5,
      recovered: 1,
      byQuestEnd: [{ questEnd: g.quest.walkthrough[3]!.split(' ')[0], episodes: 4, won: 2 }]
    })
  })
})
