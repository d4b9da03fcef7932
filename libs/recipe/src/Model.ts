/**
 * The agent a recipe's model names (`Agent` of @mtrl/policy). A model trained from scratch gets a
 * word-level tokenizer built from its environments' own text (expert episodes: goals,
 * observations, actions; or, when the recipe starts with a pretrain stage, its transcripts); a
 * pretrained one (Hugging Face, checkpoint, base) is loaded with its options.
 *
 * @since 0.1.0
 */
import { EnvError, Rng, type Env } from '@mtrl/core'
import { Progress } from '@mtrl/experiment'
import { Agent, ChatTemplate, Checkpoint, Lora, ModelConfig, Policy, PolicyError, WordTokenizer } from '@mtrl/policy'
import { ActionFormat, Layout } from '@mtrl/rollout'
import { Demonstrations } from '@mtrl/trainer-sft'
import * as A from 'fp-ts/lib/Array.js'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { PretrainedModel, ResolvedScratch } from './Recipe.js'
import { failed, type Failed } from './RunError.js'

/** A policy library's error as a run's. @category errors */
export const policyError = (e: PolicyError.PolicyError): Failed => failed(PolicyError.message(e))

/** The texts an action adds to a tokenizer's corpus: the action, and as each non-plain format of `formats` writes it. */
export const replies = (formats: ReadonlyArray<ActionFormat.ActionFormat>): ((action: string) => ReadonlyArray<string>) => {
  const written = [...new Set(formats)].filter((f) => f !== 'plain')
  return (action) => [action, ...written.map((f) => Layout.reply(f, action))]
}

/**
 * A from-scratch agent whose word tokenizer is built from `texts` (words seen at least twice get
 * an id; anything else is spelled in bytes, so nothing is unknown). @category constructors
 */
export const fromTexts =
  (model: ResolvedScratch, seed: number) =>
  (texts: ReadonlyArray<string>): Agent.Agent => {
    const { kind: _kind, corpusEpisodes: _corpus, maxVocab, ...sizes } = model
    const tokenizer = WordTokenizer.build({ ...WordTokenizer.defaultOptions, maxVocab })(texts)
    const config = ModelConfig.make({ vocab: tokenizer.vocabSize, ...sizes })
    return Agent.make(Policy.make(config, seed, { tokenizer }), undefined, tokenizer, ChatTemplate.make(tokenizer), config.maxLen)
  }

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
  const corpora = sources.map((s) => Demonstrations.corpus(model.corpusEpisodes, replies(formats))(s, rng.split()))
  return pipe(
    A.sequence(TE.ApplicativePar)(corpora),
    TE.mapLeft((e) => failed(EnvError.message(e))),
    TE.map((texts) => fromTexts(model, seed)(texts.flat()))
  )
}

/**
 * The model folder of a base: a checkpoint folder, or the run folder that built it (its last
 * finished stage's checkpoint); an mtrl checkpoint, not a Hugging Face folder. @category constructors
 */
const baseFolder = async (path: string): Promise<E.Either<Failed, string>> => {
  const dir = Progress.modelFolder(path)
  if (E.isLeft(dir)) return E.left(failed(`base model: ${dir.left}`))
  return (await Checkpoint.isCheckpoint(dir.right))
    ? dir
    : E.left(failed(`base model: ${dir.right} is not an mtrl checkpoint (a base is built by a recipe with a pretrain stage, e.g. recipes/base.json)`))
}

/**
 * An agent from a local Hugging Face folder (optionally with LoRA adapters and another context),
 * an mtrl checkpoint, or a base (an mtrl checkpoint, or the run folder that built it): its policy
 * only, with the tokenizer and chat template saved beside it (stages make or restore critics).
 * @category constructors
 */
export const pretrained = (model: PretrainedModel): TE.TaskEither<Failed, Agent.Agent> => {
  switch (model.kind) {
    case 'checkpoint':
      return pipe(Agent.pretrained(model.path, {}), TE.mapLeft(policyError))
    case 'base':
      return pipe(
        () => baseFolder(model.path),
        TE.chain((dir) => pretrained({ kind: 'checkpoint', path: dir }))
      )
    case 'hf': {
      const options = {
        ...(model.lora === undefined ? {} : { lora: { ...Lora.defaultOptions, ...model.lora } }),
        ...(model.maxLen === undefined ? {} : { maxLen: model.maxLen })
      }
      return pipe(Agent.pretrained(model.path, options), TE.mapLeft(policyError))
    }
  }
}
