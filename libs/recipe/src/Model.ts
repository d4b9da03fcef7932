/**
 * The agent a recipe's model names (`Agent` of @mtrl/policy). A model trained from scratch gets a
 * word-level tokenizer built from its environments' own text (expert episodes: goals,
 * observations, actions); a pretrained one is loaded with its options.
 *
 * @since 0.1.0
 */
import { EnvError, Rng, type Env } from '@mtrl/core'
import { Agent, ChatTemplate, Lora, ModelConfig, Policy, PolicyError, WordTokenizer } from '@mtrl/policy'
import { ActionFormat, Layout } from '@mtrl/rollout'
import { Demonstrations } from '@mtrl/trainer-sft'
import * as A from 'fp-ts/lib/Array.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { PretrainedModel, ResolvedScratch } from './Recipe.js'
import { failed, type Failed } from './RunError.js'

/** A policy library's error as a run's. @category errors */
export const policyError = (e: PolicyError.PolicyError): Failed => failed(PolicyError.message(e))

/**
 * Builds a from-scratch agent for the given environments (the tokenizer from their expert
 * episodes, each action also written in every non-plain `formats` the recipe's rollouts use, so
 * that a tool call's or tag's pieces are words of the vocabulary). @category constructors
 */
export const scratch = (
  model: ResolvedScratch,
  sources: ReadonlyArray<Env.EnvSource>,
  seed: number,
  formats: ReadonlyArray<ActionFormat.ActionFormat> = []
): TE.TaskEither<Failed, Agent.Agent> => {
  const rng = Rng.make(seed)
  const { kind: _kind, corpusEpisodes, maxVocab, ...sizes } = model
  const written = [...new Set(formats)].filter((f) => f !== 'plain')
  const replies = (action: string): ReadonlyArray<string> => [action, ...written.map((f) => Layout.reply(f, action))]
  const corpora = sources.map((s) => Demonstrations.corpus(corpusEpisodes, replies)(s, rng.split()))
  return pipe(
    A.sequence(TE.ApplicativePar)(corpora),
    TE.mapLeft((e) => failed(EnvError.message(e))),
    TE.map((texts) => {
      // Words seen at least twice get an id; anything else is spelled in bytes, so nothing is unknown.
      const tokenizer = WordTokenizer.build({ ...WordTokenizer.defaultOptions, maxVocab })(texts.flat())
      const config = ModelConfig.make({ vocab: tokenizer.vocabSize, ...sizes })
      return Agent.make(Policy.make(config, seed, { tokenizer }), undefined, tokenizer, ChatTemplate.make(tokenizer), config.maxLen)
    })
  )
}

/** An agent from a local Hugging Face folder (optionally with LoRA adapters and another context) or an mtrl checkpoint (its policy only: stages make or restore critics). @category constructors */
export const pretrained = (model: PretrainedModel): TE.TaskEither<Failed, Agent.Agent> => {
  const options =
    model.kind === 'checkpoint'
      ? {}
      : {
          ...(model.lora === undefined ? {} : { lora: { ...Lora.defaultOptions, ...model.lora } }),
          ...(model.maxLen === undefined ? {} : { maxLen: model.maxLen })
        }
  return pipe(Agent.pretrained(model.path, options), TE.mapLeft(policyError))
}
