/**
 * A tiny word-tokenizer model taught (by gradient descent, in a few seconds) to reply exactly
 * what some conversations show, so that tests can ask real clients for replies they can check:
 * tool calls, contents, multi-turn conversations.
 */
import { ChatTemplate, ModelConfig, Policy, Scoring, WordTokenizer } from '@mtrl/policy'
import * as tf from '@tensorflow/tfjs'
import * as E from 'fp-ts/lib/Either.js'
import * as ChatFormat from '../src/ChatFormat.js'

export interface Lesson {
  readonly conversation: ChatFormat.Conversation
  readonly reply: string
}

export interface Taught {
  readonly policy: Policy.Policy
  readonly tokenizer: WordTokenizer.WordTokenizer
  readonly format: ChatFormat.ChatFormat
}

/** A model that greedily replies `lesson.reply` (then its stop token) to each lesson's conversation. */
export const teach = (lessons: ReadonlyArray<Lesson>, options: { readonly steps?: number; readonly corpus?: ReadonlyArray<string> } = {}): Taught => {
  const corpus = lessons.flatMap((l) => [l.reply, ...l.conversation.messages.map((m) => m.content)])
  const tokenizer = WordTokenizer.build({ maxVocab: 600, minCount: 1 })([...corpus, ...(options.corpus ?? [])])
  const format = ChatFormat.turns(tokenizer)
  const stop = ChatTemplate.make(tokenizer).stopTokens[0]!
  const rows = lessons.map((l) => {
    const prompt = format.render(l.conversation)
    if (E.isLeft(prompt)) throw new Error(prompt.left)
    return { ids: [...prompt.right, ...tokenizer.encode(l.reply), stop], from: prompt.right.length }
  })
  const T = Math.max(...rows.map((r) => r.ids.length))
  const policy = Policy.make(ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 48, layers: 2, heads: 4, ffn: 96, maxLen: 512 }), 11, { tokenizer })
  const ids = tf.tensor2d(
    rows.map((r) => [...r.ids, ...new Array(T - r.ids.length).fill(0)]),
    [rows.length, T],
    'int32'
  )
  const mask = tf.tensor2d(
    rows.map((r) => Array.from({ length: T }, (_, t) => (t >= r.from && t < r.ids.length ? 1 : 0))),
    [rows.length, T]
  )
  const optimizer = tf.train.adam(0.01)
  for (let step = 0; step < (options.steps ?? 150); step++)
    tf.tidy(() => {
      optimizer.minimize(() => tf.neg(tf.sum(tf.mul(Scoring.tokenLogprobs(policy)(ids).logprobs, mask))) as tf.Scalar, false, Policy.trainableVariables(policy))
    })
  optimizer.dispose()
  tf.dispose([ids, mask])
  return { policy, tokenizer, format }
}
