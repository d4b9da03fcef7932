/**
 * Every family fixture (fixtures/hf: tiny Hugging Face checkpoints; fixtures/hf-templates: the
 * same architectures carrying the published chat templates of Gemma 2, Gemma 3, Llama 3.2,
 * Mistral Nemo and Phi-3.5) through training, in process: one LoRA SFT step on expert demonstrations and one GRPO iteration, each laid out
 * token-exact in the folder's own chat template. "Token-exact": the prompt and every
 * observation of a rollout (and of a demonstration) are the tokens of the template's Jinja
 * rendering (serving's `ChatFormat.jinja`, transformers' semantics) of the same conversation,
 * a stopped reply ends with the template's end of turn, and the trainer scores exactly the
 * tokens the sampler drew (sampler-trainer log-prob gap under 1e-4). Where the template cannot
 * keep a system message in place (Gemma 2 refuses it, Mistral moves it), the conversation
 * rendered has the system prompt opening the first user message, as the rollout has it.
 * (libs/policy's ChatTemplate.test.ts checks the same layouts against transformers' own ids.)
 */
import { Rng, type Trajectory } from '@mtrl/core'
import { Settings, TextWorld } from '@mtrl/env-textworld'
import { Agent, Lora, Policy } from '@mtrl/policy'
import { Layout, Rollout } from '@mtrl/rollout'
import { ChatFormat } from '@mtrl/serving'
import { TestBackend } from '@mtrl/testing'
import { Config, Kl, Trainer } from '@mtrl/trainer-rl'
import { Demonstrations, Sft } from '@mtrl/trainer-sft'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../fixtures')
const families = ['hf', 'hf-templates'].flatMap((set) =>
  readdirSync(join(root, set))
    .filter((d) => existsSync(join(root, set, d, 'config.json')))
    .map((d) => join(set, d))
)
const source = TextWorld.source(Settings.custom(1, 1, 1))
const contextLength = 384
const rollout = { ...Rollout.defaultOptions, maxTurns: 2, maxNewTokens: 3, temperature: 1, systemPrompt: 'Play the game.' }

beforeAll(async () => {
  await TestBackend.use('wasm')
})
afterAll(() => source.dispose())

/** The folder's chat template as serving renders it (chat_template.jinja wins over tokenizer_config.json's); undefined without one. */
const formatOf = (dir: string, agent: Agent.Agent): ChatFormat.ChatFormat | undefined => {
  const config = JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8')) as Record<string, string | null | undefined>
  const jinja = join(dir, 'chat_template.jinja')
  const template = existsSync(jinja) ? readFileSync(jinja, 'utf8') : config['chat_template']
  if (typeof template !== 'string') return undefined
  return ChatFormat.jinja(template, agent.tokenizer, { bos_token: config['bos_token'] ?? undefined, eos_token: config['eos_token'] ?? undefined })
}

type Message = ChatFormat.Message
const placeholder = 'mtrl-placeholder-reply'
const text = (format: ChatFormat.ChatFormat, messages: ReadonlyArray<Message>, addGenerationPrompt: boolean): string =>
  E.getOrElseW((e: string) => {
    throw new Error(e)
  })(format.text({ messages, tools: [] }, { addGenerationPrompt }))

/**
 * Checks that `trajectory`'s prompt and observations (`observations`: the environment's texts,
 * replayed) are the template's rendering of its conversation (the replies' own text does not
 * enter: a placeholder stands for each), and that a reply ending in a stop token ends with the
 * template's end of turn.
 */
const expectTemplateLayout = (
  format: ChatFormat.ChatFormat,
  agent: Agent.Agent,
  trajectory: Trajectory.Trajectory,
  first: { readonly goal: string; readonly text: string },
  observations: ReadonlyArray<string>,
  folded: boolean
): void => {
  const encode = (s: string): number[] => Array.from(agent.tokenizer.encode(s))
  const end = agent.tokenizer.decode([agent.template.stopTokens[0]!])
  const [prompt, ...rest] = trajectory.segments
  const system = Layout.system(rollout.systemPrompt, rollout.actionFormat)
  const user = Layout.firstUser(first.goal, first.text)
  let messages: Message[] = folded
    ? [{ role: 'user', content: `${system}\n\n${user}` }]
    : [
        { role: 'system', content: system },
        { role: 'user', content: user }
      ]
  expect(Array.from(prompt!.tokens)).toEqual(encode(text(format, messages, true)))
  const stops = new Set(agent.template.stopTokens)
  let turn = 0
  for (const segment of rest) {
    if (segment.kind === 'action') {
      const last = segment.tokens[segment.tokens.length - 1]!
      messages = [...messages, { role: 'assistant', content: placeholder, toolCalls: [] }]
      // a stopped reply ends as the template ends an assistant turn
      if (stops.has(last))
        expect(text(format, [...messages, { role: 'user', content: 'next' }], true)).toContain(`${placeholder}${agent.tokenizer.decode([last])}`)
      continue
    }
    // an observation: what the template writes after the reply's end of turn, the user turn, the next generation prompt
    messages = [...messages, { role: 'user', content: observations[turn++]! }]
    const after = text(format, messages, true)
    const reply = after.lastIndexOf(placeholder) + placeholder.length
    expect(after.slice(reply, reply + end.length)).toBe(end)
    expect(Array.from(segment.tokens), `observation ${turn}`).toEqual(encode(after.slice(reply + end.length)))
  }
}

/** The environment's first observation and its observations after each of `trajectory`'s actions, replayed. */
const replay = async (trajectory: Trajectory.Trajectory): Promise<{ readonly first: { goal: string; text: string }; readonly observations: string[] }> => {
  const env = source.make()
  const start = await env.reset(trajectory.seed)()
  if (E.isLeft(start)) throw new Error('reset failed')
  const observations: string[] = []
  for (const turn of trajectory.turns) {
    const step = await env.step(turn.action)()
    if (E.isLeft(step)) throw new Error('step failed')
    observations.push(step.right.observation)
  }
  await env.close()()
  return { first: start.right, observations }
}

describe('every family trains: one LoRA SFT step and one GRPO iteration, token-exact in its chat template', () => {
  for (const name of families)
    it(name, async () => {
      const dir = join(root, name)
      // the template refuses a system message or moves it: the rollout's system prompt opens the first user message
      const folded =
        name.startsWith('hf-templates') && (JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8')) as { system: string }).system === 'folded'
      const loaded = await Agent.pretrained(dir, { lora: { rank: 2, alpha: 4, targets: Lora.defaultOptions.targets }, maxLen: contextLength })()
      if (E.isLeft(loaded)) throw new Error(JSON.stringify(loaded.left))
      const agent = loaded.right
      const { policy, template, tokenizer } = agent
      const format = formatOf(dir, agent)
      // a folder with a chat template is laid out in it (no fallback to mtrl's layout)
      if (format !== undefined) expect(agent.template.origin).toMatch(/^the model's chat template/)
      const renderer = { template, tokenizer }

      // SFT: one step on two expert demonstrations
      const demos = await Demonstrations.fromExpert(
        { systemPrompt: rollout.systemPrompt, actionFormat: rollout.actionFormat, maxTurns: 4, detourRate: 0, maxDetours: 0, episodes: 2, contextLength },
        renderer
      )(source, Rng.make(1))()
      if (E.isLeft(demos)) throw new Error(Demonstrations.message(demos.left))
      const base = policy.variables['model.layers.0.self_attn.q_proj.weight']!.dataSync().slice()
      const adapters = Policy.trainableVariables(policy)
      const before = adapters.map((v) => v.dataSync().slice())
      const sft = Sft.train({ ...Sft.defaultOptions, epochs: 1, batchSize: 2 })(policy)(demos.right)
      expect(sft.steps.length).toBe(1)
      expect(Number.isFinite(sft.steps[0]!['loss/sft']) && sft.steps[0]!['grad/norm'] > 0).toBe(true)
      expect(adapters.some((v, i) => v.dataSync().some((x, j) => x !== before[i]![j]))).toBe(true)

      // RL: one GRPO iteration, its episodes kept to check their layout
      const played: Rollout.Episode[] = []
      const config = Config.make({
        algorithm: 'grpo',
        budget: { seedsPerIteration: 1, groupSize: 2 },
        rollout,
        kl: Kl.none,
        update: { epochs: 1, minibatches: 1 },
        seed: 2
      })
      const trainer = Trainer.make({
        config,
        policy,
        envs: [source.make(), source.make()],
        template,
        tokenizer,
        contextLength,
        play: (input, generator) =>
          TE.map((result: Rollout.Result) => {
            played.push(...result.episodes)
            return result
          })(Rollout.run(config.rollout)(generator)(input))
      })
      const metrics = await Trainer.iterate(trainer)()
      if (E.isLeft(metrics)) throw new Error(JSON.stringify(metrics.left))
      expect(Number.isFinite(metrics.right['loss/policy'])).toBe(true)
      expect(metrics.right['logprob/sampler_trainer_gap']).toBeLessThan(1e-4)
      expect(played.length).toBe(2)
      await Trainer.settle(trainer)
      trainer.dispose()
      expect(policy.variables['model.layers.0.self_attn.q_proj.weight']!.dataSync()).toEqual(base) // LoRA: the base never moves

      // the layouts, in the folder's own template
      // (tiny-llama and tiny-qwen2, written before the families, carry no chat template: mtrl's ChatML layout is theirs)
      if (format !== undefined)
        for (const t of [...played.map((e) => e.trajectory), demos.right[0]!]) {
          const { first, observations } = await replay(t)
          expectTemplateLayout(format, agent, t, first, observations, folded)
        }
      agent.dispose()
    })
})
