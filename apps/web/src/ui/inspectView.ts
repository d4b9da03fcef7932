/**
 * The Inspect panel's views: the group side by side (one column per episode: won or lost, its
 * return and advantage, its turns' actions) and one episode token by token, each token a
 * `span.token` with its mask, kind, turn and numbers as data attributes, the turn's reward after
 * its last action token.
 */
import type { InspectedEpisode, InspectedToken, Inspection } from '../worker/protocol.js'
import { el } from './dom.js'
import { tokenColour, tokenTitle, type ColourBy } from './tokenColours.js'

const fixed = (x: number): string => `${x >= 0 ? '+' : ''}${x.toFixed(2)}`

/** The episode's advantage: the mean over its action tokens (one value for outcome-level estimators such as GRPO and RLOO). */
export const episodeAdvantage = (episode: InspectedEpisode): number | undefined => {
  const values = episode.tokens.flatMap((t) => (t.advantage === undefined ? [] : [t.advantage]))
  return values.length === 0 ? undefined : values.reduce((a, b) => a + b, 0) / values.length
}

/** The largest |advantage| of the inspection (the advantage scale's end). */
export const advantageScale = (inspection: Inspection): number =>
  Math.max(0, ...inspection.episodes.flatMap((e) => e.tokens.map((t) => Math.abs(t.advantage ?? 0))))

/** One column of the group. */
export const episodeColumn = (episode: InspectedEpisode, index: number, selected: boolean): HTMLElement => {
  const advantage = episodeAdvantage(episode)
  return el('div', { className: `episode-column${selected ? ' selected' : ''} ${episode.won ? 'won' : 'lost'}`, attrs: { 'data-episode': String(index) } }, [
    el('div', { className: 'column-head', text: `#${index + 1} · ${episode.won ? 'won' : 'lost'}` }),
    el('div', { className: 'column-numbers', text: `return ${fixed(episode.return)}${advantage === undefined ? '' : ` · A ${fixed(advantage)}`}` }),
    el(
      'ol',
      { className: 'column-turns' },
      episode.turns.map((turn) =>
        el('li', { className: turn.valid ? '' : 'invalid', title: `reward ${fixed(turn.reward)}${turn.valid ? '' : ' (invalid)'}` }, [turn.action])
      )
    )
  ])
}

const tokenSpan = (token: InspectedToken, by: ColourBy, scale: number): HTMLElement => {
  const span = el('span', {
    className: 'token',
    text: token.text,
    title: tokenTitle(token),
    attrs: {
      'data-mask': token.mask ? '1' : '0',
      'data-kind': token.kind,
      'data-turn': String(token.turn),
      ...(token.logprob === undefined ? {} : { 'data-logprob': String(token.logprob) }),
      ...(token.advantage === undefined ? {} : { 'data-advantage': String(token.advantage) }),
      ...(token.value === undefined ? {} : { 'data-value': String(token.value) })
    }
  })
  const colour = tokenColour(token, by, scale)
  if (colour !== undefined) span.style.background = colour
  return span
}

/** The index of each turn's last action token. */
const turnEnds = (tokens: ReadonlyArray<InspectedToken>): ReadonlyMap<number, number> =>
  new Map(tokens.flatMap((t, i) => (t.kind === 'action' ? [[t.turn, i] as const] : [])))

/** `episode` token by token, coloured `by`, each turn's reward after its last action token. */
export const episodeTokens = (episode: InspectedEpisode, by: ColourBy, scale: number): ReadonlyArray<HTMLElement> => {
  const ends = new Map([...turnEnds(episode.tokens)].map(([turn, i]) => [i, turn]))
  return episode.tokens.flatMap((token, i) => {
    const turn = ends.get(i)
    const reward = turn === undefined ? undefined : episode.turns[turn]
    return [
      tokenSpan(token, by, scale),
      ...(reward === undefined
        ? []
        : [
            el('span', {
              className: `turn-reward${reward.valid ? '' : ' invalid'}`,
              text: ` r=${fixed(reward.reward)}${reward.valid ? '' : ' invalid'} `,
              attrs: { 'data-turn': String(turn) }
            })
          ])
    ]
  })
}
