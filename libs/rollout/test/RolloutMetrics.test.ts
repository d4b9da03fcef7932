import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/RolloutMetrics.js'

describe('RolloutMetrics', () => {
  it('counts action hacking: same non-empty reasoning, different action, on consecutive turns', () => {
    const r = (reasoning: string, action: string) => ({ reasoning, action })
    expect(_.actionHacking([r('key is here', 'take key'), r('key is here', 'open door'), r('key is here', 'open door'), r('', 'go'), r('', 'look')])).toEqual({
      hacked: 1,
      pairs: 4
    })
    expect(_.actionHacking([])).toEqual({ hacked: 0, pairs: 0 })
  })

  it('never counts more hacked pairs than pairs, nor any when the reasoning always changes', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ reasoning: fc.constantFrom('', 'a', 'b'), action: fc.constantFrom('x', 'y') })), (replies) => {
        const { hacked, pairs } = _.actionHacking(replies)
        expect(hacked).toBeLessThanOrEqual(pairs)
        const distinct = replies.map((x, i) => ({ ...x, reasoning: `${x.reasoning}${i}` }))
        expect(_.actionHacking(distinct).hacked).toBe(0)
      })
    )
  })

  it('summarises episodes into rates', () => {
    const turn = (valid: boolean, parsed: boolean) => ({ action: 'a', reward: 0, valid, parsed, score: 0, maxScore: 1 })
    const episode = (won: boolean, truncated: boolean, turns: ReturnType<typeof turn>[]) => ({
      env: 'e',
      seed: 0,
      groupId: 'e:0',
      segments: [],
      turns,
      turnRewards: turns.map(() => (won ? 0.5 : 0)),
      won,
      truncated
    })
    const m = _.summarize([episode(true, false, [turn(true, true), turn(false, true)]), episode(false, true, [turn(true, false)])], {
      generatedTokens: 30,
      contextTokens: 90,
      cutOff: 1,
      hackingPairs: 0,
      pairs: 1,
      seconds: 2
    })
    expect(m).toMatchObject({
      episodes: 2,
      turns: 3,
      turnsMean: 1.5,
      successRate: 0.5,
      returnMean: 0.5,
      invalidRate: 1 / 3,
      formatErrorRate: 1 / 3,
      cutOffRate: 1 / 3,
      truncatedRate: 0.5,
      tokensPerSecond: 15,
      turnsPerSecond: 1.5
    })
  })
})
