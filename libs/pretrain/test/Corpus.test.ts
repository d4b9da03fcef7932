import { Rng, type Env } from '@mtrl/core'
import { Settings, TextWorld } from '@mtrl/env-textworld'
import { Evaluate } from '@mtrl/eval'
import * as E from 'fp-ts/lib/Either.js'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Corpus.js'
import * as Seeds from '../src/Seeds.js'
import type * as Transcript from '../src/Transcript.js'

const right = <A>(e: E.Either<unknown, A>): A => {
  if (E.isLeft(e)) throw new Error(JSON.stringify(e.left))
  return e.right
}

/** Every held-out seed an evaluation or an SFT stage's held-out check plays is at or above this. */
const firstHeldOut = Math.min(3_000_000_000, ...Object.values(Evaluate.splitSeedBase))

describe('Corpus.generate', () => {
  it('plays every environment of the default mixture, on pretraining seeds only, never an evaluation seed', async () => {
    const transcripts = right(await _.generate({ episodes: 300 })(Rng.make(4))())
    expect(transcripts).toHaveLength(300)
    for (const t of transcripts) {
      expect(Seeds.isPretrainSeed(t.seed)).toBe(true)
      expect(t.seed).toBeLessThan(firstHeldOut)
      expect(t.seed).toBeGreaterThanOrEqual(2 ** 31)
    }
    const envs = new Set(transcripts.map((t) => t.env))
    expect([...envs].some((e) => e.startsWith('alfworld/train'))).toBe(true)
    expect([...envs].some((e) => e.includes('tw-simple'))).toBe(true)
    expect([...envs].filter((e) => /w\d+-o\d+-q\d+/.test(e)).length).toBeGreaterThan(50)
    // only training distributions: no unseen cooking names, no ALFWorld validation split
    expect([...envs].filter((e) => e.endsWith('-test') || e.includes('valid'))).toEqual([])
    // seeds are not reused
    expect(new Set(transcripts.map((t) => t.seed)).size).toBe(300)
  })
  it('gives the same corpus for the same random stream, another for another', async () => {
    const a = right(await _.generate({ episodes: 40 })(Rng.make(9))())
    const b = right(await _.generate({ episodes: 40 })(Rng.make(9))())
    const c = right(await _.generate({ episodes: 40 })(Rng.make(10))())
    expect(b).toEqual(a)
    expect(c.map((t) => t.seed)).not.toEqual(a.map((t) => t.seed))
  })
  it('keeps to the turn cap and has about invalidShare free-form commands, which the environments reject, and admissible ones they accept', async () => {
    const transcripts = right(await _.generate({ episodes: 200, maxTurns: 6, invalidShare: 0.2 })(Rng.make(5))())
    const steps = transcripts.flatMap((t) => t.steps)
    expect(Math.max(...transcripts.map((t) => t.steps.length))).toBeLessThanOrEqual(6)
    const freeForm = steps.filter((s) => s.kind === 'free-form')
    expect(Math.abs(freeForm.length / steps.length - 0.2)).toBeLessThan(0.04)
    // nearly all are rejected (TextWorld accepts `take key` for `take key from table`)
    expect(freeForm.filter((s) => s.valid).length).toBeLessThan(0.03 * freeForm.length)
    expect(steps.filter((s) => s.kind === 'admissible' && !s.valid)).toEqual([])
  })
})

describe('Corpus.play: no expert step', () => {
  const settings = [Settings.custom(2, 3, 4), Settings.custom(4, 6, 8), Settings.custom(8, 12, 4)]
  const sources = settings.map((s) => TextWorld.source(s))

  it('never asks the expert', async () => {
    let asked = 0
    const spied = sources.map((s): Env.EnvSource => ({
      ...s,
      expertPlan: () => {
        asked += 1
        throw new Error('the behaviour policy asked the expert')
      }
    }))
    const transcripts = right(await _.play({ episodes: 60, maxTurns: 16, behaviour: { invalidShare: 0.1 } })((rng) => Rng.pick(rng)(spied))(Rng.make(1))())
    expect(transcripts.flatMap((t) => t.steps).length).toBeGreaterThan(300)
    expect(asked).toBe(0)
  })

  it('agrees with the expert no more than a uniform draw over admissible commands does', async () => {
    // replay each transcript, asking the expert at every step what it would play: a behaviour
    // policy that followed the expert would agree on (nearly) every step
    const rng = Rng.make(2)
    const byName = new Map(sources.map((s) => [s.name, s]))
    const transcripts = right(await _.play({ episodes: 150, maxTurns: 16, behaviour: { invalidShare: 0.1 } })((r) => Rng.pick(r)(sources))(rng)())
    let steps = 0
    let agreed = 0
    let expected = 0
    let variance = 0
    for (const t of transcripts as ReadonlyArray<Transcript.Transcript>) {
      const source = byName.get(t.env)!
      const env = source.make()
      let admissible = right(await env.reset(t.seed)()).info.admissibleActions ?? []
      for (const step of t.steps) {
        const next = source.expertPlan!(env)[0]
        if (next !== undefined) {
          const p = 0.9 / admissible.length
          steps += 1
          expected += p
          variance += p * (1 - p)
          if (step.action === next) agreed += 1
        }
        admissible = right(await env.step(step.action)()).info.admissibleActions ?? []
      }
    }
    expect(steps).toBeGreaterThan(500)
    expect(Math.abs(agreed - expected)).toBeLessThan(4 * Math.sqrt(variance))
    expect(agreed / steps).toBeLessThan(0.25)
  })

  it('has no module that names an expert', () => {
    const src = join(__dirname, '..', 'src')
    const offending = readdirSync(src).filter((f) => /expert(Plan|Action)|Expert\./.test(readFileSync(join(src, f), 'utf8')))
    expect(offending).toEqual([])
  })
})

describe('Corpus.texts', () => {
  it('holds every goal, first observation, command and answer, and each command as replies writes it', () => {
    const t: Transcript.Transcript = {
      env: 'toy',
      seed: 2 ** 31,
      goal: 'open the box',
      text: 'a box',
      steps: [{ action: 'open box', kind: 'admissible', observation: 'opened', valid: true }],
      won: true,
      done: true
    }
    expect(_.texts([t, t], (a) => [a, `<${a}>`])).toEqual([
      'open the box',
      'a box',
      'open box',
      '<open box>',
      'opened',
      'open the box',
      'a box',
      'open box',
      '<open box>',
      'opened'
    ])
  })
})
