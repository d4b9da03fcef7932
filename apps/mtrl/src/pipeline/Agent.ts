/**
 * The agent a recipe trains: policy, optional critic, tokenizer and chat template. A model
 * trained from scratch gets a word-level tokenizer built from its environments' own text
 * (expert episodes: goals, observations, actions).
 */
import { EnvError, Rng, type Env, type Tokenizer } from '@mtrl/core'
import { ChatTemplate, Checkpoint, Lora, ModelConfig, Policy, PolicyError, Pretrained, WordTokenizer, type Critic } from '@mtrl/policy'
import { Demonstrations } from '@mtrl/trainer-sft'
import * as A from 'fp-ts/lib/Array.js'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { failed, type CliError } from '../Command.js'
import type { PretrainedModel, ResolvedScratch } from '../recipe/Recipe.js'

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

/** An agent from its parts. */
export const fromParts = (policy: Policy.Policy, critic: Critic.Critic | undefined, tokenizer: Tokenizer.Tokenizer, template: Tokenizer.ChatTemplate, contextLength: number): Agent => {
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

/** The agent of a policy that carries its tokenizer (the template follows from it); else the error `missing`. */
export const fromPolicy = (missing: string, policy: Policy.Policy, critic?: Critic.Critic): E.Either<CliError, Agent> => {
  if (policy.tokenizer !== undefined) return E.right(fromParts(policy, critic, policy.tokenizer, ChatTemplate.make(policy.tokenizer), policy.config.maxLen))
  policy.dispose()
  critic?.dispose()
  return E.left(failed(missing))
}

const policyError = TE.mapLeft((e: PolicyError.PolicyError) => failed(PolicyError.message(e)))

/** Builds a from-scratch agent for the given environments (the tokenizer from their expert episodes). */
export const scratch = (model: ResolvedScratch, sources: ReadonlyArray<Env.EnvSource>, seed: number): TE.TaskEither<CliError, Agent> => {
  const rng = Rng.make(seed)
  const { kind: _kind, corpusEpisodes, maxVocab, ...sizes } = model
  const corpora = sources.map((s) => Demonstrations.corpus(corpusEpisodes)(s, rng.split()))
  return pipe(
    A.sequence(TE.ApplicativePar)(corpora),
    TE.mapLeft((e) => failed(EnvError.message(e))),
    TE.map((texts) => {
      // Words seen at least twice get an id; anything else is spelled in bytes, so nothing is unknown.
      const tokenizer = WordTokenizer.build({ ...WordTokenizer.defaultOptions, maxVocab })(texts.flat())
      const config = ModelConfig.make({ vocab: tokenizer.vocabSize, ...sizes })
      return fromParts(Policy.make(config, seed, { tokenizer }), undefined, tokenizer, ChatTemplate.make(tokenizer), config.maxLen)
    })
  )
}

/**
 * An agent from a local Hugging Face folder or an mtrl checkpoint (optionally with LoRA
 * adapters, and a context other than the model's). Only the policy is kept: the pipeline makes
 * or restores critics per RL stage.
 */
export const pretrained = (model: PretrainedModel): TE.TaskEither<CliError, Agent> => {
  const options =
    model.kind === 'checkpoint'
      ? {}
      : { ...(model.lora === undefined ? {} : { lora: { ...Lora.defaultOptions, ...model.lora } }), ...(model.maxLen === undefined ? {} : { maxLen: model.maxLen }) }
  return pipe(Pretrained.load(model.path, options), policyError, TE.chainEitherK((policy) => fromPolicy(`${model.path}: no tokenizer.json`, policy)))
}

/** The agent saved in a checkpoint folder (policy and critic). */
export const load = (dir: string): TE.TaskEither<CliError, Agent> =>
  pipe(Checkpoint.load(dir), policyError, TE.chainEitherK(({ policy, critic }) => fromPolicy(`${dir}: the checkpoint has no tokenizer`, policy, critic)))

/** Saves the agent (policy and critic) with `extra` metadata. */
export const save = (dir: string, agent: Agent, extra: unknown): TE.TaskEither<CliError, void> =>
  pipe(Checkpoint.save(dir, { policy: agent.policy, ...(agent.critic === undefined ? {} : { critic: agent.critic }), extra }), policyError)
