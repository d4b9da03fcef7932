import { Rng, Trajectory, type Env } from '@mtrl/core'
import { Settings, TextWorld } from '@mtrl/env-textworld'
import { ChatTemplate, WordTokenizer } from '@mtrl/policy'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Demonstrations.js'

const settings = Settings.custom(2, 3, 4)
const source = TextWorld.source(settings)
const tokenizer = WordTokenizer.build({ maxVocab: 1024, minCount: 1 })(['go north', 'take the key'])
const renderer = { template: ChatTemplate.make(tokenizer), tokenizer }
const options = (overrides: Partial<_.Options> = {}): _.Options => ({
  systemPrompt: '',
  actionFormat: 'plain',
  maxTurns: 12,
  detourRate: 0,
  maxDetours: 0,
  episodes: 5,
  contextLength: 4096,
  ...overrides
})

describe('Demonstrations.fromExpert', () => {
  it('gives as many won demonstrations as asked, each within the context, the same for the same seed', async () => {
    const a = await _.fromExpert(options(), renderer)(source, Rng.make(3))()
    const b = await _.fromExpert(options(), renderer)(source, Rng.make(3))()
    expect(E.isRight(a)).toBe(true)
    if (E.isLeft(a) || E.isLeft(b)) return
    expect(a.right.length).toBe(5)
    expect(a.right.every((d) => d.won && Trajectory.length(d) <= 4096)).toBe(true)
    expect(a.right.map((d) => d.seed)).toEqual(b.right.map((d) => d.seed))
    expect(a.right.every((d) => d.seed < 2 ** 31)).toBe(true)
  })

  it('skips demonstrations longer than the context, keeping the seed order of the rest', async () => {
    const all = await _.fromExpert(options({ episodes: 20 }), renderer)(source, Rng.make(1))()
    if (E.isLeft(all)) throw new Error(_.message(all.left))
    const lengths = all.right.map(Trajectory.length).sort((x, y) => x - y)
    const limit = lengths[10]!
    const kept = await _.fromExpert(options({ episodes: 5, contextLength: limit }), renderer)(source, Rng.make(1))()
    if (E.isLeft(kept)) throw new Error(_.message(kept.left))
    expect(kept.right.every((d) => Trajectory.length(d) <= limit)).toBe(true)
    const order = all.right
      .filter((d) => Trajectory.length(d) <= limit)
      .slice(0, 5)
      .map((d) => d.seed)
    expect(kept.right.map((d) => d.seed)).toEqual(order)
  })

  it('stops with DoNotFit, instead of looping forever, when no demonstration fits the context', async () => {
    const result = await _.fromExpert(options({ contextLength: 20 }), renderer)(source, Rng.make(0))()
    expect(E.isLeft(result) && result.left).toMatchObject({ _tag: 'DoNotFit', env: source.name, contextLength: 20, kept: 0, wanted: 5 })
    expect(E.isLeft(result) && _.message(result.left)).toMatch(/do not fit the model's context of 20 tokens \(the shortest has \d+/)
  })

  it('needs an expert', async () => {
    const none: Env.EnvSource = { ...source, expertPlan: undefined }
    expect(await _.fromExpert(options(), renderer)(none, Rng.make(0))()).toEqual(E.left({ _tag: 'NoExpert', env: source.name }))
  })
})

describe('Demonstrations.fitting', () => {
  it('names the first demonstration longer than the context', async () => {
    const demos = await _.fromExpert(options({ episodes: 3 }), renderer)(source, Rng.make(2))()
    if (E.isLeft(demos)) throw new Error(_.message(demos.left))
    const lengths = demos.right.map(Trajectory.length)
    expect(_.fitting(Math.max(...lengths))(demos.right)).toEqual(E.right(demos.right))
    const cut = Math.min(...lengths)
    const first = lengths.findIndex((n) => n > cut - 1)
    expect(_.fitting(cut - 1)(demos.right)).toEqual(E.left({ _tag: 'TooLong', index: first, length: lengths[first], contextLength: cut - 1 }))
  })
})

describe('Demonstrations.corpus', () => {
  it('holds the goals, observations and expert actions of the episodes, the same for the same seed', async () => {
    const texts = await _.corpus(3)(source, Rng.make(9))()
    if (E.isLeft(texts)) throw new Error('corpus failed')
    expect(await _.corpus(3)(source, Rng.make(9))()).toEqual(texts)
    const env = source.make()
    const seed = _.trainSeed(Rng.make(9))
    const start = await env.reset(seed)()
    if (E.isLeft(start)) throw new Error('reset failed')
    const plan = source.expertPlan?.(env) ?? []
    expect(texts.right.slice(0, 2)).toEqual([start.right.goal, start.right.text])
    for (const action of plan) expect(texts.right).toContain(action)
  })
})
