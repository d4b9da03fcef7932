import { Rng } from '@mtrl/core'
import { Settings, TextWorld } from '@mtrl/env-textworld'
import { Toy } from '@mtrl/testing'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Transcript.js'

const right = <A>(e: E.Either<unknown, A>): A => {
  if (E.isLeft(e)) throw new Error(JSON.stringify(e.left))
  return e.right
}

describe('Transcript.play', () => {
  it("records the environment's own answers: replaying the commands gives the same observations", async () => {
    const env = TextWorld.make(Settings.custom(3, 4, 5))
    for (let seed = 2 ** 31; seed < 2 ** 31 + 20; seed++) {
      const t = right(await _.play({ maxTurns: 10, behaviour: { invalidShare: 0.2 } })(env, seed, Rng.make(seed))())
      const start = right(await env.reset(seed)())
      expect([t.goal, t.text]).toEqual([start.goal, start.text])
      for (const step of t.steps) {
        const r = right(await env.step(step.action)())
        expect([step.observation, step.valid]).toEqual([r.observation, r.info.valid])
      }
      expect(t.env).toBe('textworld/w3-o4-q5')
      expect(t.steps.length === 10 || t.done).toBe(true)
    }
  })
  it('stops when the game ends', async () => {
    // the corridor ends after three moves (a step after the end would be an error)
    const t = right(await _.play({ maxTurns: 5, behaviour: { invalidShare: 0 } })(Toy.corridor('left', 3), 1, Rng.make(0))())
    expect([t.steps.length, t.done]).toEqual([3, true])
    const cut = right(await _.play({ maxTurns: 2, behaviour: { invalidShare: 0 } })(Toy.corridor('left', 3), 1, Rng.make(0))())
    expect([cut.steps.length, cut.done, cut.won]).toEqual([2, false, false])
  })
  it('plays nothing where no command is admissible', async () => {
    const env = TextWorld.make(Settings.custom(2, 3, 4), { admissible: false })
    const t = right(await _.play({ maxTurns: 5, behaviour: { invalidShare: 0.5 } })(env, 2 ** 31, Rng.make(0))())
    expect(t.steps).toEqual([])
  })
})

describe('Transcript.texts', () => {
  it('is the goal, the first observation, then each command and answer', () => {
    const t: _.Transcript = {
      env: 'toy',
      seed: 0,
      goal: 'g',
      text: 'x',
      steps: [
        { action: 'a1', kind: 'admissible', observation: 'o1', valid: true },
        { action: 'a2', kind: 'free-form', observation: 'o2', valid: false }
      ],
      won: false,
      done: false
    }
    expect(_.texts()(t)).toEqual(['g', 'x', 'a1', 'o1', 'a2', 'o2'])
    expect(_.texts((a) => [a, a.toUpperCase()])(t)).toEqual(['g', 'x', 'a1', 'A1', 'o1', 'a2', 'A2', 'o2'])
  })
})
