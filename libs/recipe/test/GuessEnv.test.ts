/**
 * A new environment is one file (`@mtrl/testing` `GuessEnv`: game, codec, registry entry) plus
 * this test: registered, it is a recipe's environment (decoded, checked field by field, played
 * through `EnvConfig.source`, with an expert for SFT) without an edit in the recipe.
 */
import { GuessEnv } from '@mtrl/testing'
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as EnvConfig from '../src/EnvConfig.js'
import * as Recipe from '../src/Recipe.js'

const recipe = (env: unknown, kind: 'rl' | 'sft' = 'rl') =>
  Recipe.decode({ name: 'r', stages: [kind === 'rl' ? { kind, env, iterations: 1 } : { kind, env, episodes: 4 }] })

const playExpert = async (config: EnvConfig.EnvConfig, seed: number): Promise<ReadonlyArray<string>> => {
  const source = EnvConfig.source(config)
  const env = source.make()
  const start = await env.reset(seed)()
  if (E.isLeft(start)) throw new Error(JSON.stringify(start.left))
  const seen: string[] = []
  for (const guess of source.expertPlan!(env)) {
    const step = await env.step(guess)()
    if (E.isLeft(step)) throw new Error(JSON.stringify(step.left))
    seen.push(`${guess} ${step.right.observation}${step.right.won ? ' (won)' : ''}`)
  }
  return seen
}

describe('a registered toy environment (GuessEnv)', () => {
  it('is unknown before it is registered: the error names the registered kinds', () => {
    const before = recipe({ kind: 'guess', high: 16 })
    expect(E.isLeft(before) && before.left).toMatch(/stages\.0\.env\.kind: expected one of textworld \| alfworld \| swe \| http, got "guess"/)
  })

  it('registered, recipes take it; a bad or unknown field is named; the expert (binary search) wins', async () => {
    EnvConfig.register(GuessEnv.entry)
    expect(() => EnvConfig.register(GuessEnv.entry)).toThrow(/"guess" is already registered/)
    expect(EnvConfig.entries().map((e) => e.kind)).toEqual(['textworld', 'alfworld', 'swe', 'http', 'guess'])
    const decoded = recipe({ kind: 'guess', high: 16 }, 'sft')
    if (E.isLeft(decoded)) throw new Error(decoded.left)
    const env = Recipe.stageEnv(decoded.right.stages[0]!)!
    expect(env).toEqual({ kind: 'guess', high: 16 })
    expect([EnvConfig.label(env), EnvConfig.hasExpert(env), EnvConfig.source(env).maxTurns]).toEqual(['guess/16', true, 6])
    const bad = recipe({ kind: 'guess', high: 1 })
    expect(E.isLeft(bad) && bad.left).toMatch(/stages\.0\.env\.high: expected an integer from 2 to 1000, got 1/)
    const typo = recipe({ kind: 'guess', hihg: 16 })
    expect(E.isLeft(typo) && typo.left).toMatch(/stages\.0\.env\.hihg: unknown field/)
    // seed 0's secret by hand: imul(1, 2654435761) >>> 0 = 0x9E3779B1, mod 16 = 1, plus 1: 2; halving 1..16: 8, 4, 2
    expect(await playExpert(env, 0)).toEqual(['8 lower', '4 lower', '2 right (won)'])
    // the built-in kinds still decode beside it
    expect(E.isRight(recipe({ kind: 'textworld', settings: 'w2-o3-q4' }))).toBe(true)
  })

  it('property: the expert wins every game within the turns an episode has', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 1000 }), fc.nat(10_000), async (high, seed) => {
        const moves = await playExpert({ kind: 'guess', high }, seed)
        expect(moves[moves.length - 1]).toMatch(/right \(won\)$/)
        expect(moves.length).toBeLessThanOrEqual(GuessEnv.maxTurns(high) - 1)
      }),
      { numRuns: 100 }
    )
  })
})
