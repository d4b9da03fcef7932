/** What the page draws from the worker's data: records to chart rows, tokens to colours. */
import { describe, expect, it } from 'vitest'
import { evalSummary, hasValue, rowsOf } from '../src/ui/metricRows.js'
import { advantageColour, logprobColour, tokenColour } from '../src/ui/tokenColours.js'
import type { InspectedToken } from '../src/worker/protocol.js'

describe('chart rows', () => {
  it('maps each kind of the metrics log to its charts, a NaN to a gap, and other kinds to nothing', () => {
    expect(rowsOf({ kind: 'sft', step: 3, 'loss/sft': 2.5, 'loss/context': Number.NaN })).toEqual([
      { chart: 'loss', values: { 'loss/sft': 2.5, 'loss/context': null } }
    ])
    expect(rowsOf({ kind: 'sft-epoch', 'loss/train': 1.2, 'loss/heldout': 1.4 })).toEqual([{ chart: 'heldOutLoss', values: { train: 1.2, 'held-out': 1.4 } }])
    const rl = rowsOf({ kind: 'rl', 'episode/success_rate': 0.5, 'episode/invalid_rate': 0.1, 'episode/truncated_rate': 0, 'kl/prior': 0.02, 'kl/mean': null })
    expect(rl.map((r) => r.chart)).toEqual(['success', 'invalid', 'kl'])
    expect(rl[2]!.values).toEqual({ 'kl/prior': 0.02, 'kl/mean': null })
    expect(rowsOf({ kind: 'sft-check' })).toEqual([])
    expect(hasValue({ chart: 'kl', values: { a: null } })).toBe(false)
  })

  it('draws one line per evaluated game and says each success in a line', () => {
    const record = {
      kind: 'eval',
      phase: 'after stage 1',
      results: [
        { env: 'textworld/w2-o3-q4', successRate: 0.81 },
        { env: 'textworld/w4-o6-q8', successRate: 0.2 }
      ]
    }
    expect(rowsOf(record)).toEqual([{ chart: 'eval', values: { 'textworld/w2-o3-q4': 0.81, 'textworld/w4-o6-q8': 0.2 } }])
    expect(evalSummary(record)).toBe('after stage 1: textworld/w2-o3-q4 81.0%, textworld/w4-o6-q8 20.0%')
  })
})

describe('token colours', () => {
  const token = (fields: Partial<InspectedToken>): InspectedToken => ({ text: 'x', kind: 'action', mask: true, turn: 0, ...fields })

  it('goes from white (sure) to red (log-prob -4 and below), and is blue below zero advantage, green above', () => {
    expect(logprobColour(0)).toBe('rgb(255, 255, 255)')
    expect(logprobColour(-4)).toBe(logprobColour(-40))
    expect(advantageColour(0, 1)).toBe('rgb(255, 255, 255)')
    expect(advantageColour(-1, 1)).toBe('rgb(96, 165, 250)')
    expect(advantageColour(1, 1)).toBe('rgb(74, 222, 128)')
    expect(advantageColour(0.5, 1)).not.toBe(advantageColour(1, 1))
  })

  it('colours only what a token has: no log-prob or advantage off the action tokens; the mask always', () => {
    const prompt = token({ kind: 'prompt', mask: false })
    expect(tokenColour(prompt, 'logprob', 1)).toBeUndefined()
    expect(tokenColour(prompt, 'advantage', 1)).toBeUndefined()
    expect(tokenColour(prompt, 'mask', 1)).not.toBe(tokenColour(token({}), 'mask', 1))
    expect(tokenColour(token({ logprob: -2 }), 'logprob', 1)).toBe(logprobColour(-2))
  })
})
