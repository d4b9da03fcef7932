/**
 * What the benches share: the load average (the figures mean something only on an idle
 * machine), the backend from MTRL_BACKEND, and what they play: TextWorld w2-o3-q4 with a word tokenizer built from its own text (the
 * words of 40 games, as a recipe builds one) and the default recipe's model shape (d 128, 2
 * layers, 8 heads, previous-token embedding, canon span 3), freshly initialised by the caller.
 */
import { Backend } from '@mtrl/backend'
import { Settings, TextWorld } from '@mtrl/env-textworld'
import type { Tokenizer } from '@mtrl/core'
import { ChatTemplate, ModelConfig, WordTokenizer } from '@mtrl/policy'
import { Layout } from '@mtrl/rollout'
import * as E from 'fp-ts/lib/Either.js'
import { loadavg } from 'node:os'

/** The 1, 5 and 15 minute load averages. */
export const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')

/** The backend MTRL_BACKEND asks for (default auto), started. */
export const selectBackend = async (): Promise<Backend.Selected> => {
  const selected = await Backend.selectFromEnvironment()()
  if (E.isLeft(selected)) throw new Error(Backend.message(selected.left))
  return selected.right
}

export const settings = Settings.custom(2, 3, 4)

export interface Shape {
  readonly tokenizer: Tokenizer.Tokenizer
  readonly template: Tokenizer.ChatTemplate
  readonly model: ModelConfig.ModelConfig
}

export const build = async (contextLength: number): Promise<Shape> => {
  const corpus: string[] = [Layout.system('', 'plain')]
  for (let seed = 0; seed < 40; seed++) {
    const start = await TextWorld.make(settings).reset(seed)()
    if (E.isLeft(start)) throw new Error(JSON.stringify(start.left))
    corpus.push(start.right.goal, start.right.text, ...(start.right.info.admissibleActions ?? []))
  }
  const tokenizer = WordTokenizer.build({ maxVocab: 1024, minCount: 1 })(corpus)
  const template = ChatTemplate.make(tokenizer)
  const model = ModelConfig.make({
    vocab: tokenizer.vocabSize,
    dModel: 128,
    layers: 2,
    heads: 8,
    maxLen: contextLength,
    prevTokenEmbedding: true,
    canonSpan: 3
  })
  return { tokenizer, template, model }
}
