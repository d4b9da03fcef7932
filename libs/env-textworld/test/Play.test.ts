import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Play.js'
import * as Settings from '../src/Settings.js'

const text = (e: E.Either<string, string>): string => {
  if (E.isLeft(e)) throw new Error(e.left)
  return e.right
}

describe('Play', () => {
  it('writes a transcript of the given commands, then lets the expert finish', () => {
    const t = text(_.transcript({ settings: Settings.custom(2, 3, 4), seed: 7, expert: true })(['look', 'xyzzy']))
    expect(t).toMatch(/^textworld\/w2-o3-q4, seed 7\n\n/)
    expect(t).toContain('> look\n')
    expect(t).toContain("> xyzzy  (invalid)\n\nThat's not a verb I recognise.")
    expect(t.match(/\(expert\)/g)).toHaveLength(4)
    expect(t).toContain('*** The End ***')
    expect(t).toContain('[score 3/3, turn 6]')
  })

  it('is deterministic and lists admissible commands on request', () => {
    const options = { settings: Settings.cooking('dense', 'brief'), seed: 3, admissible: true }
    const a = text(_.transcript(options)(['open chest drawer', 'open antique trunk']))
    expect(a).toBe(text(_.transcript(options)(['open chest drawer', 'open antique trunk'])))
    expect(a).toContain('[admissible: examine antique trunk | examine chest drawer')
  })

  it('ignores commands after the end of the episode', () => {
    const session = _.start(Settings.cooking('sparse', 'none'), 2)
    if (E.isLeft(session)) throw new Error(session.left)
    const plan = session.right.session.game.quest.walkthrough
    const t = text(_.transcript({ settings: Settings.cooking('sparse', 'none'), seed: 2 })([...plan, 'look', 'look']))
    expect(t.match(/^> /gm)).toHaveLength(plan.length)
  })

  it('plays one command at a time', () => {
    const started = _.start(Settings.custom(2, 3, 4), 1)
    if (E.isLeft(started)) throw new Error(started.left)
    const out = _.send(started.right.session, 'inventory')
    expect(out).toMatchObject({ valid: true, text: 'You are carrying nothing.' })
    expect(out.session.turn).toBe(1)
  })
})
