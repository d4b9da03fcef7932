import { EnvError, type Env } from '@mtrl/core'
import { GuessEnv } from '@mtrl/testing'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Session.js'

/** The guessing game (1..16; seed 0's secret is 2, 6 turns), counting the environments closed. */
const counted = () => {
  const source = GuessEnv.source({ kind: 'guess', high: 16 })
  let closed = 0
  const make = (): Env.Env => {
    const env = source.make()
    return { ...env, close: () => async () => void (closed += 1) }
  }
  return { source: { ...source, make, expertPlan: (env: Env.Env) => source.expertPlan!(env) }, closed: () => closed }
}

const run = async (options: Omit<_.Options, 'out'>, commands: ReadonlyArray<string>, source = counted().source) => {
  const blocks: string[] = []
  const result = await _.play(source, { ...options, out: (s) => blocks.push(s) })(commands)()
  return { blocks, result }
}

const start = 'guess/16, seed 0\n\nguess the number from 1 to 16\n\nguess\n\n[score 0/1, turn 0]'

describe('Session.play', () => {
  it("writes the expert's game of seed 0 as worked out by hand: 8 lower, 4 lower, 2 right", async () => {
    const { source, closed } = counted()
    const { blocks, result } = await run({ seed: 0, expert: true }, ['these are not read'], source)
    expect(result).toEqual(E.right(undefined))
    expect(blocks).toEqual([
      start,
      'expert plan (3 steps): 8 ; 4 ; 2',
      '> 8  (expert)\n\nlower\n\n[score 0/1, turn 1]',
      '> 4  (expert)\n\nlower\n\n[score 0/1, turn 2]',
      '> 2  (expert)\n\nright\n\n[score 1/1, turn 3]\n*** You won! ***'
    ])
    expect(closed()).toBe(1)
  })

  it('plays the commands, skipping blank lines, marking invalid ones, until quit; prompting before each', async () => {
    let prompts = 0
    const blocks: string[] = []
    const commands = ['', ' 8 ', 'seven', '4', 'quit', '2']
    const result = await _.play(counted().source, { seed: 0, out: (s) => blocks.push(s), prompt: () => void (prompts += 1) })(commands)()
    expect(result).toEqual(E.right(undefined))
    expect(blocks).toEqual([
      start,
      '> 8\n\nlower\n\n[score 0/1, turn 1]',
      '> seven\n\nsay a number from 1 to 16\n\n[score 0/1, turn 2, invalid]',
      '> 4\n\nlower\n\n[score 0/1, turn 3]'
    ])
    expect(prompts).toBe(4)
  })

  it('ends with the loss at the turn limit, whatever follows', async () => {
    const { blocks } = await run(
      { seed: 0 },
      Array.from({ length: 9 }, () => '9')
    )
    expect(blocks).toHaveLength(7)
    expect(blocks[6]).toBe('> 9\n\nlower\n\n[score 0/1, turn 6]\n*** You lost. ***')
  })

  it('lists the admissible commands when asked and known', () => {
    const info = { valid: true, score: 0, maxScore: 3, admissibleActions: ['go north', 'look'] }
    expect(_.statusLine(info, 2, true)).toBe('[score 0/3, turn 2]\n[admissible: go north | look]')
    expect(_.statusLine(info, 2, false)).toBe('[score 0/3, turn 2]')
    expect(_.statusLine({ valid: false, score: 1, maxScore: 3 }, 1, true)).toBe('[score 1/3, turn 1, invalid]')
  })

  it("returns the environment's error and still closes it", async () => {
    const { source, closed } = counted()
    const failing = { ...source, make: () => ({ ...source.make(), reset: () => TE.left(EnvError.notStarted('broken')) }) }
    const { result } = await run({ seed: 0 }, ['8'], failing)
    expect(result).toEqual(E.left(EnvError.notStarted('broken')))
    expect(closed()).toBe(1)
  })

  it('property: at most maxTurns steps and one per command before quit (fewer only when the game ended), one environment is made and closed, from any command stream', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat(1000),
        fc.array(fc.oneof(fc.constantFrom('', 'quit', 'x'), fc.integer({ min: 1, max: 16 }).map(String)), { maxLength: 12 }),
        async (seed, commands) => {
          const { source, closed } = counted()
          const { blocks, result } = await run({ seed }, commands, source)
          expect(E.isRight(result)).toBe(true)
          expect(blocks.length - 1).toBeLessThanOrEqual(source.maxTurns)
          const quit = commands.indexOf('quit')
          const before = (quit < 0 ? commands : commands.slice(0, quit)).filter((c) => c !== '')
          const steps = blocks.length - 1
          expect(steps).toBeLessThanOrEqual(before.length)
          // fewer steps than commands before quit: the game ended
          if (steps < before.length) expect(blocks[steps]).toMatch(/\*\*\* You (won!|lost\.) \*\*\*$/)
          expect(closed()).toBe(1)
        }
      ),
      { numRuns: 100 }
    )
  })
})
