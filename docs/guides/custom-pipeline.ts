// A custom pipeline from the packages: TextWorld -> word tokenizer -> tiny transformer ->
// SFT on expert demonstrations -> PPO -> evaluation on held-out seeds.
import { Backend } from '@mtrl/backend'
import { Rng, type Env } from '@mtrl/core'
import { Settings, TextWorld } from '@mtrl/env-textworld'
import { ChatTemplate, Critic, ModelConfig, Policy, Sampler, WordTokenizer } from '@mtrl/policy'
import { Outcome } from '@mtrl/rewards'
import { Rollout } from '@mtrl/rollout'
import { Config, Trainer } from '@mtrl/trainer-rl'
import { ExpertData, Sft } from '@mtrl/trainer-sft'
import * as O from 'fp-ts/lib/Option.js'

await Backend.select('wasm')()
const settings = Settings.custom(1, 2, 2)
const expertEpisode = async (env: TextWorld.TextWorldEnv, seed: number) => {
  const start = await env.reset(seed)()
  return { start, plan: O.getOrElse((): ReadonlyArray<string> => [])(TextWorld.expertPlan(env)) }
}
// 1. A tokenizer from the environment's own text (goals, rooms, expert actions).
const env = TextWorld.make(settings)
const corpus: string[] = []
for (let seed = 0; seed < 100; seed++) {
  const { start, plan } = await expertEpisode(env, seed)
  if (start._tag === 'Right') corpus.push(start.right.goal, start.right.text, ...plan)
}
const tokenizer = WordTokenizer.build({ maxVocab: 1024, minCount: 1 })(corpus)
const template = ChatTemplate.make(tokenizer)
// 2. A tiny policy and critic.
const config = ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 32, layers: 1, heads: 2, maxLen: 512, tiedEmbeddings: true })
const policy = Policy.make(config, 1, { tokenizer })
const critic = Critic.make(policy, { shareTrunk: false }, 2)
// 3. SFT on expert demonstrations, recorded exactly as rollouts will see them.
const rollout: Rollout.Options = { ...Rollout.defaultOptions, maxTurns: 4, maxNewTokens: 6 }
const replay = ExpertData.replay({ systemPrompt: rollout.systemPrompt, actionFormat: rollout.actionFormat }, { template, tokenizer })
const demos = []
for (let seed = 1000; seed < 1032; seed++) {
  const { plan } = await expertEpisode(env, seed)
  const demo = await replay(env, seed, plan)()
  if (demo._tag === 'Right') demos.push(demo.right)
}
const sft = Sft.train({ ...Sft.defaultOptions, epochs: 2, learningRate: 3e-3, heldOutFraction: 0 })(policy)(demos)
console.log('sft loss', sft.epochs.map((e) => e['loss/train'].toFixed(3)).join(' -> '))
// 4. Two PPO iterations with a sparse outcome reward.
const envs: Env.Env[] = Array.from({ length: 4 }, () => TextWorld.make(settings))
const trainer = Trainer.make({ config: Config.make({ budget: { seedsPerIteration: 4, groupSize: 1 }, rollout }), policy, critic, envs, template, tokenizer, contextLength: 512, reward: Outcome.outcome })
for (let i = 0; i < 2; i++) {
  const metrics = await Trainer.iterate(trainer)()
  if (metrics._tag === 'Right') console.log('ppo', i, 'success', metrics.right['episode/success_rate'], 'loss/value', metrics.right['loss/value'].toFixed(4))
}
trainer.dispose()
// 5. Greedy evaluation on held-out seeds.
const session = Sampler.make(policy, { slots: 4, maxLen: 512 })
const evaluation = await Rollout.run({ ...rollout, temperature: 0 })({ session, template, tokenizer, contextLength: 512 })({ envs, seeds: [9001, 9002, 9003, 9004], groupSize: 1, rng: Rng.make(0) })()
if (evaluation._tag === 'Right') console.log('eval success', evaluation.right.metrics.successRate)
session.dispose()
policy.dispose()
critic.dispose()
