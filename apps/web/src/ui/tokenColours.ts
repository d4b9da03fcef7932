/**
 * The Inspect panel's colour scales. Pure: a token's number in, a CSS colour out.
 * - log-prob: white (the sampler was sure, log p = 0) to red (log p <= -4, a surprise);
 * - advantage: blue (negative) through white to green (positive), scaled by the largest |A|;
 * - mask: trained tokens (in the action mask) highlighted, the rest grey.
 */
import type { InspectedToken } from '../worker/protocol.js'

export type ColourBy = 'logprob' | 'advantage' | 'mask'

/** The log-prob at which the red saturates. */
const surprising = -4

const mix = (from: readonly [number, number, number], to: readonly [number, number, number], t: number): string => {
  const s = Math.min(1, Math.max(0, t))
  const [r, g, b] = from.map((c, i) => Math.round(c + (to[i]! - c) * s)) as [number, number, number]
  return `rgb(${r}, ${g}, ${b})`
}

const white = [255, 255, 255] as const
const red = [239, 68, 68] as const
const blue = [96, 165, 250] as const
const green = [74, 222, 128] as const

export const logprobColour = (logprob: number): string => mix(white, red, logprob / surprising)

export const advantageColour = (advantage: number, scale: number): string =>
  scale <= 0 ? mix(white, white, 0) : advantage < 0 ? mix(white, blue, -advantage / scale) : mix(white, green, advantage / scale)

/** The background of `token` under `by` (`scale`: the largest |advantage| of the inspection); undefined: none. */
export const tokenColour = (token: InspectedToken, by: ColourBy, scale: number): string | undefined => {
  switch (by) {
    case 'logprob':
      return token.logprob === undefined ? undefined : logprobColour(token.logprob)
    case 'advantage':
      return token.advantage === undefined ? undefined : advantageColour(token.advantage, scale)
    case 'mask':
      return token.mask ? '#fde68a' : '#e5e7eb'
  }
}

/** The hover text of a token: its kind, turn and numbers. */
export const tokenTitle = (token: InspectedToken): string =>
  [
    `${token.kind}, turn ${token.turn}, ${token.mask ? 'trained (mask 1)' : 'not trained (mask 0)'}`,
    ...(token.logprob === undefined ? [] : [`log-prob ${token.logprob.toFixed(3)} (p ${Math.exp(token.logprob).toFixed(3)})`]),
    ...(token.advantage === undefined ? [] : [`advantage ${token.advantage.toFixed(3)}`]),
    ...(token.value === undefined ? [] : [`value ${token.value.toFixed(3)}`])
  ].join('\n')

/** What the colours of `by` mean, as a CSS gradient and its two ends' words. */
export const legend = (by: ColourBy): { readonly gradient: string; readonly low: string; readonly high: string } => {
  switch (by) {
    case 'logprob':
      return {
        gradient: `linear-gradient(to right, ${logprobColour(0)}, ${logprobColour(surprising)})`,
        low: 'log p 0 (sure)',
        high: `log p <= ${surprising} (surprising)`
      }
    case 'advantage':
      return {
        gradient: `linear-gradient(to right, ${advantageColour(-1, 1)}, ${advantageColour(0, 1)}, ${advantageColour(1, 1)})`,
        low: 'negative',
        high: 'positive'
      }
    case 'mask':
      return { gradient: 'linear-gradient(to right, #e5e7eb 50%, #fde68a 50%)', low: 'not trained (mask 0)', high: 'trained (mask 1)' }
  }
}
