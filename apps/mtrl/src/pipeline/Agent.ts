/**
 * The agent a recipe trains: policy, optional critic, tokenizer and chat template. A model
 * trained from scratch gets a word-level tokenizer built from its environments' own text
 * (expert episodes: goals, observations, actions).
 */
import { EnvError, Rng, type Env, type Tokenizer } from '@mtrl/core'
import { ChatTemplate, Checkpoint, Critic, HuggingFace, Lora, ModelConfig, Policy, PolicyError, WordTokenizer } from '@mtrl/policy'
import * as E from 'fp-ts/lib/Either.js'
import type { PretrainedModel, ScratchModel } from '../recipe/Recipe.js'

export interface Agent {
  readonly policy: Policy.Policy
  readonly critic: Critic.Critic | undefined
  readonly tokenizer: Tokenizer.Tokenizer
  readonly template: Tokenizer.ChatTemplate
  readonly contextLength: number
  /** A frozen copy of the policy as it is now (for KL); made once, on first use. */
  readonly reference: () => Policy.Policy
  readonly dispose: () => void
}

/** Text an environment produces: goals, observations and expert actions of `episodes` games. */
export const corpus = async (source: Env.EnvSource, episodes: number, rng: Rng.Rng): Promise<ReadonlyArray<string>> => {
  const env = source.make()
  const texts: string[] = []
  try {
    for (let i = 0; i < episodes; i++) {
      const seed = rng.int(2147483647)
      const start = await env.reset(seed)()
      if (E.isLeft(start)) throw new Error(EnvError.message(start.left))
      texts.push(start.right.goal, start.right.text, ...(start.right.info.admissibleActions ?? []))
      for (const action of source.expertPlan?.(env) ?? []) {
        const step = await env.step(action)()
        if (E.isLeft(step)) throw new Error(EnvError.message(step.left))
        texts.push(action, step.right.observation, ...(step.right.info.admissibleActions ?? []))
        if (step.right.done) break
      }
    }
  } finally {
    await env.close()()
  }
  return texts
}

/** Builds a from-scratch agent for the given environments. */
export const scratch = async (model: ScratchModel, sources: ReadonlyArray<Env.EnvSource>, seed: number): Promise<Agent> => {
  const rng = Rng.make(seed)
  const texts = (await Promise.all(sources.map((h) => corpus(h, model.corpusEpisodes ?? 400, rng.split())))).flat()
  // Words seen at least twice get an id; anything else is spelled in bytes, so nothing is unknown.
  const tokenizer = WordTokenizer.build({ maxVocab: model.maxVocab ?? 2048, minCount: 2 })(texts)
  const template = ChatTemplate.make(tokenizer)
  const config = ModelConfig.make({
    vocab: tokenizer.vocabSize,
    dModel: model.dModel ?? 128,
    layers: model.layers ?? 2,
    heads: model.heads ?? 4,
    ...(model.ffn === undefined ? {} : { ffn: model.ffn }),
    maxLen: model.maxLen ?? 512,
    positional: model.positional ?? 'rope',
    norm: model.norm ?? 'rmsnorm',
    activation: model.activation ?? 'swiglu',
    tiedEmbeddings: model.tiedEmbeddings ?? true,
    prevTokenEmbedding: model.prevTokenEmbedding ?? false,
    canonSpan: model.canonSpan ?? 0
  })
  const policy = Policy.make(config, seed, { tokenizer })
  return fromParts(policy, undefined, tokenizer, template, config.maxLen)
}

/** An agent from its parts. */
export const fromParts = (
  policy: Policy.Policy,
  critic: Critic.Critic | undefined,
  tokenizer: Tokenizer.Tokenizer,
  template: Tokenizer.ChatTemplate,
  contextLength: number
): Agent => {
  let reference: Policy.Policy | undefined
  return {
    policy,
    critic,
    tokenizer,
    template,
    contextLength,
    reference: () => {
      reference ??= Policy.fromHost(policy.config, Policy.toHost(policy.variables))
      return reference
    },
    dispose: () => {
      policy.dispose()
      critic?.dispose()
      reference?.dispose()
    }
  }
}

/**
 * An agent from a local Hugging Face folder or an mtrl checkpoint (optionally with LoRA
 * adapters). Only the policy is kept: the pipeline makes or restores critics per RL stage.
 */
export const pretrained = async (model: PretrainedModel): Promise<Agent> => {
  const lora = model.lora === undefined ? undefined : { ...Lora.defaultOptions, ...model.lora }
  let policy: Policy.Policy
  if (model.kind === 'checkpoint') {
    const loaded = await Checkpoint.load(model.path)()
    if (E.isLeft(loaded)) throw new Error(PolicyError.message(loaded.left))
    policy = loaded.right.policy
    loaded.right.critic?.dispose()
  } else {
    const loaded = await HuggingFace.load(model.path, lora === undefined ? {} : { lora })()
    if (E.isLeft(loaded)) throw new Error(PolicyError.message(loaded.left))
    policy = loaded.right
  }
  if (policy.tokenizer === undefined) throw new Error(`${model.path}: no tokenizer.json`)
  return fromParts(policy, undefined, policy.tokenizer, ChatTemplate.make(policy.tokenizer), policy.config.maxLen)
}
