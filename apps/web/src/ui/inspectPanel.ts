/**
 * The Inspect panel: sample a group of episodes of one game with the current agent, see them side
 * by side with their group-relative advantages, and read one token by token coloured by
 * log-prob, advantage or action mask.
 */
import type { EnvChoice, Event, Inspection } from '../worker/protocol.js'
import type { Connection } from './connection.js'
import { byId, el, numberIn, percent } from './dom.js'
import { advantageScale, episodeColumn, episodeTokens } from './inspectView.js'
import { legend, type ColourBy } from './tokenColours.js'

/** `#inspect-legend`: the colour scale in use, its two ends named. */
const showLegend = (by: ColourBy): void => {
  const { gradient, low, high } = legend(by)
  const bar = el('span', { className: 'legend-bar' })
  bar.style.background = gradient
  byId('inspect-legend').replaceChildren(el('span', { text: low }), bar, el('span', { text: high }))
}

const render = (inspection: Inspection, selected: number, select: (index: number) => void): void => {
  const won = inspection.episodes.filter((e) => e.won).length
  byId('inspect-summary').textContent =
    `${inspection.env} · seed ${inspection.seed} · ${inspection.estimator.toUpperCase()} · ${won}/${inspection.episodes.length} won (${percent(won / Math.max(1, inspection.episodes.length))})`
  byId('inspect-group-view').replaceChildren(
    ...inspection.episodes.map((episode, i) => {
      const column = episodeColumn(episode, i, i === selected)
      column.addEventListener('click', () => select(i))
      return column
    })
  )
  const episode = inspection.episodes[selected]
  const by = byId<HTMLSelectElement>('inspect-colour').value as ColourBy
  showLegend(by)
  byId('inspect-episode').replaceChildren(
    ...(episode === undefined
      ? []
      : [
          el('div', { className: 'episode-head', text: `episode #${selected + 1}: ${episode.won ? 'won' : 'lost'}, return ${episode.return.toFixed(2)}` }),
          el('div', { className: `tokens colour-${by}` }, episodeTokens(episode, by, advantageScale(inspection)))
        ])
  )
}

/** Wires `#inspect-run` and `#inspect-colour`; returns the handler of `inspection` events. */
export const mountInspectPanel = (connection: Connection, game: () => EnvChoice): ((event: Event) => void) => {
  let shown: Inspection | undefined
  let selected = 0
  const redraw = (): void => (shown === undefined ? undefined : render(shown, selected, select))
  const select = (index: number): void => {
    selected = index
    redraw()
  }
  byId('inspect-run').addEventListener('click', () =>
    connection.send({
      type: 'inspect',
      env: game(),
      seed: numberIn('inspect-seed', 1),
      groupSize: Math.max(1, Math.round(numberIn('inspect-group', 4))),
      estimator: byId<HTMLSelectElement>('inspect-estimator').value === 'rloo' ? 'rloo' : 'grpo'
    })
  )
  byId('inspect-colour').addEventListener('change', redraw)
  return (event) => {
    if (event.type !== 'inspection') return
    shown = event.inspection
    selected = 0
    redraw()
  }
}
