/**
 * What the token-level and the turn-level GAE share: their options (gamma, lambda, whitening)
 * and the scaffolding of an estimate (options and batch checked, advantages and returns filled
 * by the estimator's scan, whitened over the action tokens when asked).
 */
import * as t from 'io-ts'
import { assertValid, type Estimate, type TokenBatch } from '../TokenBatch.js'
import { UnitInterval } from './codecs.js'
import { whitenInPlace } from './whiten.js'

export const Options = t.type({ gamma: UnitInterval, lambda: UnitInterval, whiten: t.boolean })
export type Options = t.TypeOf<typeof Options>

/** gamma = lambda = 1, whitened (verl's defaults). */
export const defaultOptions: Options = { gamma: 1, lambda: 1, whiten: true }

/** An estimator whose `scan` fills `advantages` and `returns` (`[batch, time]`, zero off the mask). */
export const estimator =
  (name: string, scan: (input: TokenBatch, options: Options, advantages: Float32Array, returns: Float32Array) => void) =>
  (options: Options) =>
  (input: TokenBatch): Estimate => {
    if (!Options.is(options)) throw new Error(`${name}.estimate: invalid options ${JSON.stringify(options)}`)
    assertValid(name, input)
    const advantages = new Float32Array(input.batch * input.time)
    const returns = new Float32Array(input.batch * input.time)
    scan(input, options, advantages, returns)
    if (options.whiten) whitenInPlace(advantages, input.actionMask)
    return { batch: input.batch, time: input.time, advantages, returns }
  }
