import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/FailureReport.js'
import * as Settings from '../src/Settings.js'
import * as TextWorld from '../src/TextWorld.js'

const walkthrough = (name: string, seed: number): ReadonlyArray<string> => {
  const settings = Settings.parse(name)
  if (E.isLeft(settings)) throw new Error(settings.left)
  const game = TextWorld.gameFor(settings.right)(seed)
  if (E.isLeft(game)) throw new Error(game.left)
  return game.right.quest.walkthrough
}

describe('FailureReport', () => {
  it("replays an episode by its environment's name and seed: the walkthrough wins without a mistake, a look is a detour", () => {
    const won = _.diagnoseEpisode('textworld/w2-o3-q4', 7, walkthrough('w2-o3-q4', 7))
    expect(E.isRight(won) && won.right.won && won.right.firstMistake._tag === 'None').toBe(true)
    const lost = _.diagnoseEpisode('textworld/w2-o3-q4', 7, ['look'])
    expect(E.isRight(lost) && lost.right.firstMistake).toEqual({ _tag: 'Some', value: { turn: 0, command: 'look', kind: 'detour' } })
  })

  it('says why an episode cannot be replayed', () => {
    expect(_.diagnoseEpisode('alfworld/train', 1, [])).toEqual(E.left('env alfworld/train: a failure report replays TextWorld transcripts only'))
    const bad = _.diagnoseEpisode('textworld/w2-oX', 1, [])
    expect(E.isLeft(bad) && bad.left.startsWith('env textworld/w2-oX: ')).toBe(true)
  })

  it('counts and writes the report: one win, one loss by a detour at turn 0, and a replay that disagrees with its record', () => {
    const diagnosis = (commands: ReadonlyArray<string>) => {
      const d = _.diagnoseEpisode('textworld/w2-o3-q4', 7, commands)
      if (E.isLeft(d)) throw new Error(d.left)
      return d.right
    }
    const summary = _.summarise([
      { diagnosis: diagnosis(walkthrough('w2-o3-q4', 7)), won: true },
      { diagnosis: diagnosis(['look']), won: true }
    ])
    expect(summary).toMatchObject({ episodes: 2, won: 1, lost: 1, recovered: 0, meanMistakeTurn: 0, disagreements: 1 })
    const lines = _.format('eval.jsonl, textworld/w2-o3-q4', summary)
    expect(lines[0]).toBe('eval.jsonl, textworld/w2-o3-q4: 2 episodes, 1 won (50.0%), 1 lost')
    expect(lines).toContain('    detour            1  100.0%  a valid command that is no step towards the win')
    expect(lines).toContain('    unparsed          0    0.0%  not a command')
    expect(lines).toContain('  mean turn of that mistake (from 0): 0.00')
    expect(lines.at(-1)).toBe('  warning: 1 episodes end otherwise when replayed (transcripts of another game version?)')
  })

  it('reports per file and environment in the order first seen; an episode that does not replay names its file', () => {
    const win = walkthrough('w2-o3-q4', 7)
    const episodes = [
      { file: 'a.jsonl', env: 'textworld/w2-o3-q4', seed: 7, commands: win, won: true },
      { file: 'b.jsonl', env: 'textworld/w2-o3-q4', seed: 7, commands: ['look'], won: false },
      { file: 'a.jsonl', env: 'textworld/w2-o3-q4', seed: 7, commands: ['look'], won: false }
    ]
    const reported = _.report(episodes)
    if (E.isLeft(reported)) throw new Error(reported.left)
    expect(reported.right.map((r) => [r.file, r.env, r.episodes, r.won, r.lost])).toEqual([
      ['a.jsonl', 'textworld/w2-o3-q4', 2, 1, 1],
      ['b.jsonl', 'textworld/w2-o3-q4', 1, 0, 1]
    ])
    expect(_.report([...episodes, { file: 'c.jsonl', env: 'alfworld/train', seed: 1, commands: [], won: false }])).toEqual(
      E.left('c.jsonl: env alfworld/train: a failure report replays TextWorld transcripts only')
    )
  })
})
