import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Settings.js'

describe('Settings', () => {
  it('round-trips through the codec', () => {
    const settings = fc.record(
      {
        tier: fc.constantFrom('easy' as const, 'medium' as const, 'hard' as const),
        maxTurns: fc.integer({ min: 1, max: 99 }),
        dense: fc.boolean(),
        reward: fc.constantFrom('fraction' as const, 'binary' as const)
      },
      { requiredKeys: [] }
    )
    fc.assert(
      fc.property(settings, (s) => {
        expect(_.decode(_.Settings.encode(s))).toEqual(E.right(_.resolve(s)))
      })
    )
  })

  it('names bad and unknown fields', () => {
    expect(_.decode({ tier: 'impossible', maxTurns: -1, tiers: 1 })).toEqual(E.left(expect.stringMatching(/tier[\s\S]*maxTurns|tiers/)))
    const msg = _.decode({ maxTurns: -1 })
    expect(E.isLeft(msg) && msg.left).toContain('maxTurns')
    const unknown = _.decode({ tiers: 'easy' })
    expect(E.isLeft(unknown) && unknown.left).toContain('tiers: unknown field')
  })

  it('requires every guard unless told, loudly, to run without', () => {
    expect(_.defaults.guards).toBe('require')
    expect(_.decode({ guards: 'unsafe-best-effort' })).toEqual(E.right(expect.objectContaining({ guards: 'unsafe-best-effort' })))
    const old = _.decode({ guards: 'bestEffort' })
    expect(E.isLeft(old) && old.left).toContain('guards')
  })

  it('names the spec after the tier', () => {
    expect(_.spec(_.resolve({ tier: 'hard', maxTurns: 12 }))).toMatchObject({ name: 'swe/hard', maxTurns: 12 })
  })
})
