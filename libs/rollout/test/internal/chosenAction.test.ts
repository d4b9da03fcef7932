import { describe, expect, it } from 'vitest'
import * as Rollout from '../../src/Rollout.js'
import { actionOfReply, replyBody, turnOf, type ChosenAction } from '../../src/internal/chosenAction.js'
import type { OpenEpisode } from '../../src/internal/openEpisode.js'

const generation = (tokens: number[], stopped: boolean) => ({ tokens: Int32Array.from(tokens), logprobs: new Float32Array(tokens.length), stopped })

describe('chosenAction', () => {
  it('drops the stop token that ended a reply, and keeps every token of a cut-off reply', () => {
    const stop = new Set([9])
    expect(Array.from(replyBody(stop, generation([1, 2, 9], true)))).toEqual([1, 2])
    expect(Array.from(replyBody(stop, generation([1, 2, 3], false)))).toEqual([1, 2, 3])
  })

  it('replaces an unparseable or inadmissible action with the default action only when one is set', () => {
    const reply = (action: string, parsed: boolean) => ({ action, parsed, reasoning: '' })
    const options = { ...Rollout.defaultOptions, defaultAction: 'look', checkAdmissible: true }
    expect(actionOfReply(options, ['go'], reply('go', true))).toEqual({ action: 'go', replaced: false })
    expect(actionOfReply(options, ['go'], reply('fly', true))).toEqual({ action: 'look', replaced: true })
    expect(actionOfReply(options, undefined, reply('fly', false))).toEqual({ action: 'look', replaced: true })
    expect(actionOfReply({ ...options, checkAdmissible: false }, ['go'], reply('fly', true))).toEqual({ action: 'fly', replaced: false })
    expect(actionOfReply(Rollout.defaultOptions, ['go'], reply('fly', false))).toEqual({ action: 'fly', replaced: false })
  })

  it('makes a turn invalid when its action was replaced, and marks explored turns only', () => {
    const chosen = (replaced: boolean, explored: boolean): ChosenAction => ({
      slot: 0,
      episode: {} as OpenEpisode,
      action: 'go',
      parsed: true,
      replaced,
      explored
    })
    const result = { observation: 'o', reward: 1, done: false, won: false, info: { valid: true, score: 1, maxScore: 3 } }
    expect(turnOf(chosen(false, false), result)).toEqual({ action: 'go', reward: 1, valid: true, parsed: true, score: 1, maxScore: 3 })
    expect(turnOf(chosen(true, false), result).valid).toBe(false)
    expect(turnOf(chosen(false, true), result).explored).toBe(true)
  })
})
