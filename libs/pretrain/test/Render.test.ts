import { Rng, Trajectory } from '@mtrl/core'
import { Settings, TextWorld } from '@mtrl/env-textworld'
import { ChatTemplate, WordTokenizer } from '@mtrl/policy'
import type { ActionFormat } from '@mtrl/rollout'
import { ExpertData } from '@mtrl/trainer-sft'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as Corpus from '../src/Corpus.js'
import * as _ from '../src/Render.js'

const right = <A>(e: E.Either<unknown, A>): A => {
  if (E.isLeft(e)) throw new Error(JSON.stringify(e.left))
  return e.right
}

const source = TextWorld.source(Settings.custom(3, 4, 6))
const transcripts = async (episodes: number) =>
  right(await Corpus.play({ episodes, maxTurns: 12, behaviour: { invalidShare: 0.2 } })(() => source)(Rng.make(7))())

const rendering = async (actionFormat: ActionFormat.ActionFormat) => {
  const ts = await transcripts(30)
  const tokenizer = WordTokenizer.build({ maxVocab: 4096, minCount: 1 })(Corpus.texts(ts))
  const options: _.Options = { systemPrompt: 'You play a game.', actionFormat, template: ChatTemplate.make(tokenizer), tokenizer, contextLength: 100_000 }
  return { ts, options }
}

describe('Render.render', () => {
  for (const format of ['plain', 'tool'] as const)
    it(`gives the tokens of the agents' layout: those of ExpertData.replay of the same commands (${format})`, async () => {
      const { ts, options } = await rendering(format)
      const env = source.make()
      for (const t of ts) {
        const rendered = _.render(options)(t)!
        const replayed = right(
          await ExpertData.replay(options, options)(
            env,
            t.seed,
            t.steps.map((s) => s.action)
          )()
        )
        expect(rendered.segments.map((s) => s.kind)).toEqual(replayed.segments.map((s) => s.kind))
        expect(Array.from(Trajectory.tokens(rendered))).toEqual(Array.from(Trajectory.tokens(replayed)))
        expect(rendered.turns.map((u) => [u.action, u.valid])).toEqual(replayed.turns.map((u) => [u.action, u.valid]))
        expect([rendered.won, rendered.truncated]).toEqual([replayed.won, replayed.truncated])
      }
    })

  it('cuts a transcript after its last whole turn that fits the context', async () => {
    const { ts, options } = await rendering('plain')
    for (const t of ts) {
      const whole = _.render(options)(t)!
      for (const contextLength of [40, 80, 120]) {
        const cut = _.render({ ...options, contextLength })(t)
        if (cut === undefined) {
          // not even the prompt and the first command fit
          expect(whole.segments[0]!.tokens.length + whole.segments[1]!.tokens.length).toBeGreaterThan(contextLength)
          continue
        }
        expect(Trajectory.length(cut)).toBeLessThanOrEqual(contextLength)
        // a prefix of the whole rendering, ending with a command
        expect(Array.from(Trajectory.tokens(cut))).toEqual(Array.from(Trajectory.tokens(whole)).slice(0, Trajectory.length(cut)))
        expect(cut.segments.at(-1)!.kind).toBe('action')
        if (cut.turns.length < t.steps.length) expect(cut.truncated).toBe(true)
      }
    }
  })
})
