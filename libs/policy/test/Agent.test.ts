import { expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import * as E from 'fp-ts/lib/Either.js'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Agent.js'
import * as ChatTemplate from '../src/ChatTemplate.js'
import * as Critic from '../src/Critic.js'
import * as ModelConfig from '../src/ModelConfig.js'
import * as Policy from '../src/Policy.js'
import * as PolicyError from '../src/PolicyError.js'
import * as WordTokenizer from '../src/WordTokenizer.js'

beforeAll(() => TestBackend.use('cpu'))
const root = mkdtempSync(join(tmpdir(), 'mtrl-agent-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const tokenizer = WordTokenizer.build({ maxVocab: 300, minCount: 1 })(['go north', 'open the door'])
const config = ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 1, heads: 2, maxLen: 32 })
const values = (p: Policy.Policy): number[][] => Object.values(p.variables).map((v) => Array.from(v.dataSync()))

describe('Agent', () => {
  it('makes its reference once, as a frozen copy of the policy at the first call, and frees everything on dispose', async () => {
    await expectNoLeak(async () => {
      const policy = Policy.make(config, 1, { tokenizer })
      const agent = E.getOrElseW(() => undefined)(_.fromPolicy(PolicyError.fileError('x', 'none'), policy))!
      expect(agent.contextLength).toBe(32)
      const reference = agent.reference()
      expect(agent.reference()).toBe(reference)
      expect(values(reference)).toEqual(values(policy))
      const first = Object.values(policy.variables)[0]!
      const bumped = tf.add(first, 1)
      first.assign(bumped)
      bumped.dispose()
      expect(values(reference)).not.toEqual(values(policy))
      agent.dispose()
    })
  })

  it('refuses a policy without a tokenizer with the given error, and frees it', async () => {
    await expectNoLeak(async () => {
      const policy = Policy.make(config, 1)
      const critic = Critic.make(policy, { shareTrunk: false }, 2)
      expect(_.fromPolicy(PolicyError.fileError('dir', 'no tokenizer.json'), policy, critic)).toEqual(E.left(PolicyError.fileError('dir', 'no tokenizer.json')))
    })
  })

  it('saves and loads policy and critic; a pretrained folder keeps only the policy', async () => {
    const policy = Policy.make(config, 1, { tokenizer })
    const agent = _.withCritic(_.make(policy, undefined, tokenizer, ChatTemplate.make(tokenizer), 32), Critic.make(policy, { shareTrunk: false }, 2))
    const dir = join(root, 'ckpt')
    expect(await _.save(dir, agent, { stage: 0 })()).toEqual(E.right(undefined))
    const loaded = await _.load(dir)()
    if (E.isLeft(loaded)) throw new Error(PolicyError.message(loaded.left))
    expect(values(loaded.right.policy)).toEqual(values(policy))
    expect(loaded.right.critic).toBeDefined()
    expect(loaded.right.tokenizer.vocabSize).toBe(tokenizer.vocabSize)
    const pretrained = await _.pretrained(dir)()
    if (E.isLeft(pretrained)) throw new Error(PolicyError.message(pretrained.left))
    expect(pretrained.right.critic).toBeUndefined()
    for (const a of [agent, loaded.right, pretrained.right]) a.dispose()
    expect(E.isLeft(await _.load(join(root, 'missing'))())).toBe(true)
  })

  it("a Hugging Face folder's agent follows its chat template, and its checkpoint keeps that layout", async () => {
    const folder = join(__dirname, '../../../fixtures/hf-templates/tpl-gemma3')
    const agent = await _.pretrained(folder, { maxLen: 64 })()
    if (E.isLeft(agent)) throw new Error(JSON.stringify(agent.left))
    expect(agent.right.template.origin).toBe("the model's chat template")
    const gemma = agent.right.tokenizer.decode(agent.right.template.prompt('Be brief.', 'Hi.'))
    expect(gemma).toBe('<bos><start_of_turn>user\nBe brief.\n\nHi.<end_of_turn>\n<start_of_turn>model\n')
    const dir = join(root, 'gemma3')
    expect(E.isRight(await _.save(dir, agent.right, {})())).toBe(true)
    agent.right.dispose()
    const loaded = await _.load(dir)()
    if (E.isLeft(loaded)) throw new Error(JSON.stringify(loaded.left))
    expect(loaded.right.tokenizer.decode(loaded.right.template.prompt('Be brief.', 'Hi.'))).toBe(gemma)
    expect(loaded.right.template.observation('Go.')).toEqual(ChatTemplate.make(loaded.right.tokenizer).observation('Go.'))
    expect(loaded.right.tokenizer.decode(loaded.right.template.observation('Go.'))).toBe('\n<start_of_turn>user\nGo.<end_of_turn>\n<start_of_turn>model\n')
    loaded.right.dispose()
  })
})
