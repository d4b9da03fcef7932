import { Rng } from '@mtrl/core'
import { describe, expect, it } from 'vitest'
import { actionToExplore } from '../../src/internal/exploration.js'

const untouched = (rng: Rng.Rng, seed: number): boolean => rng.next() === Rng.make(seed).next()

describe('exploration', () => {
  it('draws nothing from the stream at rate 0 or where no admissible actions are listed', () => {
    for (const [rate, admissible] of [
      [0, ['a', 'b']],
      [0.5, undefined],
      [0.5, []]
    ] as const) {
      const rng = Rng.make(4)
      expect(actionToExplore(rate, rng, admissible)).toBeUndefined()
      expect(untouched(rng, 4)).toBe(true)
    }
  })

  it('at rate 1 always explores, drawing an admissible action uniformly', () => {
    const rng = Rng.make(1)
    const seen = new Set(Array.from({ length: 200 }, () => actionToExplore(1, rng, ['a', 'b', 'c'])))
    expect([...seen].sort()).toEqual(['a', 'b', 'c'])
  })
})
