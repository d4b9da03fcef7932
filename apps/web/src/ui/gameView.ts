/**
 * A game as terminal lines (`#play-log`): the goal and opening text, each move with who made it,
 * the game's answer, its reward and an invalid marker, then the score, the turns left and, at the
 * end, won or lost.
 */
import type { GameState, Move } from '../worker/protocol.js'
import { el } from './dom.js'

const signed = (x: number): string => `${x >= 0 ? '+' : ''}${x.toFixed(2)}`

const moveLines = (move: Move, turn: number): ReadonlyArray<HTMLElement> => [
  el('div', { className: `move by-${move.by}`, attrs: { 'data-turn': String(turn), 'data-by': move.by, 'data-valid': move.valid ? '1' : '0' } }, [
    el('span', { className: 'who', text: move.by === 'human' ? 'you  ' : 'agent' }),
    el('span', { className: 'prompt', text: ' > ' }),
    el('span', { className: 'command', text: move.command }),
    ...(move.valid ? [] : [el('span', { className: 'invalid', text: '  [invalid]' })]),
    ...(move.reward === 0 ? [] : [el('span', { className: 'reward', text: `  reward ${signed(move.reward)}` })])
  ]),
  el('div', { className: 'observation', text: move.observation })
]

const footer = (game: GameState): HTMLElement => {
  const score = `score ${game.score}/${game.maxScore}`
  if (!game.done && game.turnsLeft > 0) return el('div', { className: 'footer', text: `${score} · ${game.turnsLeft} turns left` })
  const end = game.won ? 'WON' : game.done ? 'LOST' : 'LOST: out of turns'
  return el('div', { className: `footer end ${game.won ? 'won' : 'lost'}`, text: `${end} · ${score} · ${game.moves.length} moves` })
}

/** The terminal's lines for `game`. */
export const gameLines = (game: GameState): ReadonlyArray<HTMLElement> => [
  el('div', { className: 'banner', text: `${game.env} · seed ${game.seed}` }),
  el('div', { className: 'goal', text: `Goal: ${game.goal}` }),
  el('div', { className: 'observation', text: game.start }),
  ...game.moves.flatMap(moveLines),
  footer(game)
]
