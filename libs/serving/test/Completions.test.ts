import { HfTokenizer } from '@mtrl/policy'
import * as E from 'fp-ts/lib/Either.js'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import * as ChatFormat from '../src/ChatFormat.js'
import * as _ from '../src/Completions.js'
import type * as Engine from '../src/Engine.js'
import * as Grammar from '../src/Grammar.js'
import * as Replies from '../src/Replies.js'
import * as Request from '../src/Request.js'

const fixtures = join(__dirname, '../../../fixtures')
const tokenizer = HfTokenizer.fromJson(JSON.parse(readFileSync(join(fixtures, 'hf/tiny-qwen2/tokenizer.json'), 'utf8')))
const format = ChatFormat.jinja(readFileSync(join(fixtures, 'chat-templates/table/gpt-oss.jinja'), 'utf8'), tokenizer, { eos_token: '<|return|>' })
const grammars = Grammar.make(tokenizer, format.stopTokens)
afterAll(() => grammars.dispose())
// `plan` reads only the engine's context length; nothing is decoded here
const model: _.Model = { name: 'gpt-oss', tokenizer, format, engine: { maxLen: 4096 } as Engine.Engine, replies: Replies.make(), grammars }

const GO = { type: 'function', function: { name: 'go', description: 'Move', parameters: { type: 'object', properties: { direction: { type: 'string' } } } } }
const planOf = (body: Record<string, unknown>): E.Either<_.Refusal, _.Plan> => {
  const request = Request.ChatRequest.decode({ model: 'gpt-oss', messages: [{ role: 'user', content: 'Go north.' }], ...body })
  if (E.isLeft(request)) throw new Error('the request does not decode')
  return _.plan(model, () => 1)(request.right)
}

describe('Completions.plan: a gpt-oss (harmony) model', () => {
  it('reads every reply as harmony, with tools or without (its channels structure plain answers too)', () => {
    expect(format.toolSyntax).toEqual({ _tag: 'Found', name: 'harmony' })
    const plain = planOf({})
    expect(E.isRight(plain) && plain.right.toolSyntax).toBe('harmony')
    const withTools = planOf({ tools: [GO] })
    expect(E.isRight(withTools) && withTools.right.toolSyntax).toBe('harmony')
  })

  it('refuses a forced tool call with the reason (its markers are special tokens the grammar does not see)', async () => {
    const p = planOf({ tools: [GO], tool_choice: 'required' })
    if (E.isLeft(p)) throw new Error(p.left.message)
    const prepared = await _.prepare(model, p.right)
    expect(prepared).toEqual(E.left(expect.objectContaining({ param: 'tool_choice', message: expect.stringMatching(/gpt-oss \(harmony\).*special tokens/) })))
  })
})
