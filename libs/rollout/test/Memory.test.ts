import { describe, expect, it } from 'vitest'
import * as _ from '../src/Memory.js'

describe('Memory', () => {
  const past = [1, 2, 3].map((i) => ({ observation: `o${i}`, action: `a${i}` }))
  it('window(K) keeps the goal and the last K turns', () => {
    expect(_.renderWindow('goal', past, 'now', 2)).toBe('goal\nObservation: o2\nAction: a2\nObservation: o3\nAction: a3\nObservation: now')
  })
  it('window(0) keeps the goal and the current observation only', () => {
    expect(_.renderWindow('goal', past, 'now', 0)).toBe('goal\nObservation: now')
  })
  it('rejects a negative window', () => {
    expect(() => _.window(-1)).toThrow(RangeError)
  })
  it('the codec accepts both policies', () => {
    expect(_.Memory.is(_.full)).toBe(true)
    expect(_.Memory.is(_.window(3))).toBe(true)
  })
})
