/**
 * Rollout throughput: generated tokens/s and turns/s of batched multi-turn rollouts with a small
 * freshly initialised policy (sampling only; no training) on TextWorld games (w2-o3-q4, the
 * paper's base setting) and on the toy corridor. Backend from MTRL_BACKEND (default auto).
 *
 *   npm run bench -w @mtrl/rollout
 *   MTRL_BACKEND=cpu npm run bench -w @mtrl/rollout
 */
import { Backend } from '@mtrl/backend'
import { Rng, type Env } from '@mtrl/core'
import { Settings, TextWorld } from '@mtrl/env-textworld'
import { ChatTemplate, ModelConfig, Policy, Sampler, WordTokenizer } from '@mtrl/policy'
import * as E from 'fp-ts/lib/Either.js'
import type { Tokenizer } from '@mtrl/core'
import type * as Generator from '../src/Generator.js'
import * as Rollout from '../src/Rollout.js'
import { Toy } from '@mtrl/testing'

const selected = await Backend.selectFromEnvironment()()
if (E.isLeft(selected)) throw new Error(Backend.message(selected.left))
console.log(`backend: ${selected.right.name} via ${selected.right.via} (${selected.right.threads} thread(s))`)

// The policy's word tokenizer, built from TextWorld text (observations and admissible commands
// of a few games), with the policy's chat template: the layout a real run would use.
const corpus: string[] = []
for (let seed = 0; seed < 20; seed++) {
  const env = TextWorld.make(Settings.custom(2, 3, 4))
  const start = await env.reset(seed)()
  if (E.isLeft(start)) throw new Error(JSON.stringify(start.left))
  corpus.push(start.right.goal, start.right.text, ...(start.right.info.admissibleActions ?? []))
}
const words = WordTokenizer.build({ maxVocab: 1024, minCount: 1 })(corpus)

interface Case {
  readonly label: string
  readonly tokenizer: Tokenizer.Tokenizer
  readonly template: Tokenizer.ChatTemplate
  readonly env: () => Env.Env
  readonly slots: number
  readonly contextLength: number
  readonly options: Rollout.Options
}

const cases: ReadonlyArray<Case> = [
  {
    label: `textworld w2-o3-q4 (word tokenizer, ${words.vocabSize} tokens), 8 slots, 8 turns x <= 16 new tokens, d=128 L=2`,
    tokenizer: words,
    template: ChatTemplate.make(words),
    env: () => TextWorld.make(Settings.custom(2, 3, 4)),
    slots: 8,
    contextLength: 1024,
    options: { ...Rollout.defaultOptions, maxTurns: 8, maxNewTokens: 16, temperature: 0.7 }
  },
  {
    label: 'toy corridor, 32 slots, 3 turns x <= 4 new tokens, d=128 L=2',
    tokenizer: Toy.tokenizer(),
    template: ChatTemplate.make(Toy.tokenizer()),
    env: () => Toy.corridor(),
    slots: 32,
    contextLength: 128,
    options: { ...Rollout.defaultOptions, maxTurns: 3, maxNewTokens: 4, temperature: 0.7 }
  }
]

for (const c of cases) {
  const policy = Policy.make(ModelConfig.make({ vocab: c.tokenizer.vocabSize, dModel: 128, layers: 2, heads: 4, maxLen: c.contextLength }), 0)
  const session = Sampler.make(policy, { slots: c.slots, maxLen: c.contextLength })
  const generator: Generator.Generator = { session, template: c.template, tokenizer: c.tokenizer, contextLength: c.contextLength }
  const envs = Array.from({ length: c.slots }, c.env)
  const seeds = Array.from({ length: c.slots / 2 }, (_, i) => i)
  const runs: Rollout.Result['metrics'][] = []
  for (let i = 0; i < 3; i++) {
    const result = await Rollout.run(c.options)(generator)({ envs, seeds, groupSize: 2, rng: Rng.make(i) })()
    if (E.isLeft(result)) throw new Error(JSON.stringify(result.left))
    runs.push(result.right.metrics)
  }
  const timed = runs.slice(1) // the first run warms up
  const sum = (f: (m: Rollout.Result['metrics']) => number) => timed.reduce((a, m) => a + f(m), 0)
  const seconds = sum((m) => m.seconds)
  console.log(`\n${c.label}`)
  console.log(`  generated tokens/s ${(sum((m) => m.generatedTokens) / seconds).toFixed(1)}`)
  console.log(`  context tokens/s   ${(sum((m) => m.contextTokens) / seconds).toFixed(1)} (prefill)`)
  console.log(`  turns/s            ${(sum((m) => m.turns) / seconds).toFixed(2)}`)
  console.log(
    `  episodes ${sum((m) => m.episodes)}, turns/episode ${(sum((m) => m.turns) / sum((m) => m.episodes)).toFixed(1)}, invalid ${(sum((m) => m.invalidRate) / timed.length).toFixed(2)}, truncated ${(sum((m) => m.truncatedRate) / timed.length).toFixed(2)}, ${seconds.toFixed(1)} s`
  )
  session.dispose()
  policy.dispose()
}
