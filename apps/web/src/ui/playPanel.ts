/**
 * The Play panel: a game in a terminal. The human types commands; the agent makes the next move
 * on request, or plays on by itself (`#play-auto`: one move per `game` event) until the game ends
 * or the human types, which takes over.
 */
import type { EnvChoice, Event, GameState } from '../worker/protocol.js'
import type { Connection } from './connection.js'
import { byId, el, numberIn } from './dom.js'
import { gameLines } from './gameView.js'

/** Shows the admissible commands under the terminal (clicking one fills the input). */
const showAdmissible = (game: GameState): void => {
  const shown = byId<HTMLInputElement>('play-admissible').checked
  const list = byId('play-commands')
  list.hidden = !shown
  list.replaceChildren(
    ...game.admissible.map((command) => {
      const item = el('button', { className: 'command-chip', text: command, attrs: { type: 'button' } })
      item.addEventListener('click', () => {
        byId<HTMLInputElement>('play-input').value = command
        byId('play-input').focus()
      })
      return item
    })
  )
}

const render = (game: GameState): void => {
  const log = byId('play-log')
  log.replaceChildren(...gameLines(game))
  log.scrollTop = log.scrollHeight
  showAdmissible(game)
}

/** Wires the Play panel; returns the handler of the events it shows. */
export const mountPlayPanel = (connection: Connection, game: () => EnvChoice): ((event: Event) => void) => {
  let auto = false
  let last: GameState | undefined
  const setAuto = (on: boolean): void => {
    auto = on
    byId('play-auto').textContent = on ? 'Stop the agent' : 'Agent plays on'
    byId('play-auto').classList.toggle('active', on)
  }
  const sendHuman = (): void => {
    const input = byId<HTMLInputElement>('play-input')
    const command = input.value.trim()
    if (command === '') return
    setAuto(false)
    input.value = ''
    connection.send({ type: 'move', command })
  }
  byId('play-start').addEventListener('click', () => {
    setAuto(false)
    connection.send({ type: 'play', env: game(), seed: numberIn('play-seed', 1) })
  })
  byId('play-send').addEventListener('click', sendHuman)
  byId('play-input').addEventListener('keydown', (e) => (e.key === 'Enter' ? sendHuman() : undefined))
  byId('play-input').addEventListener('input', () => setAuto(false))
  byId('play-agent').addEventListener('click', () => {
    setAuto(false)
    connection.send({ type: 'move' })
  })
  byId('play-auto').addEventListener('click', () => {
    setAuto(!auto)
    if (auto && last !== undefined && !last.done) connection.send({ type: 'move' })
  })
  byId('play-admissible').addEventListener('change', () => (last === undefined ? undefined : showAdmissible(last)))
  return (event) => {
    if (event.type === 'error') return setAuto(false)
    if (event.type !== 'game') return
    last = event.game
    render(event.game)
    if (event.game.done || event.game.turnsLeft === 0) setAuto(false)
    else if (auto) connection.send({ type: 'move' })
  }
}
