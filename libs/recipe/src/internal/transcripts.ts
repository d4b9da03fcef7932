/**
 * Pretraining transcripts in a recipe: a pretrain stage's, or an SFT stage's `replay`
 * (`@mtrl/pretrain`'s `Corpus`, seeded by the recipe and the stage), rendered in the recipe's
 * rollout layout as training samples.
 */
import { EnvError, Rng, type Trajectory } from '@mtrl/core'
import { Corpus, Render, type Transcript } from '@mtrl/pretrain'
import { Rollout } from '@mtrl/rollout'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Resolved } from '../Recipe.js'
import { failed, type Failed } from '../RunError.js'
import type { Context } from './context.js'

/**
 * The transcripts of pretrain stage `i` of `recipe` (or of SFT stage `i`'s `replay`): the same for
 * the same recipe seed and stage.
 */
export const transcripts = (recipe: Resolved, i: number, stage: Corpus.Settings): TE.TaskEither<Failed, ReadonlyArray<Transcript.Transcript>> => {
  const { episodes, mixture, invalidShare, maxTurns } = stage
  const settings: Corpus.Settings = {
    episodes,
    ...(mixture === undefined ? {} : { mixture }),
    ...(invalidShare === undefined ? {} : { invalidShare }),
    ...(maxTurns === undefined ? {} : { maxTurns })
  }
  return pipe(
    Corpus.generate(settings)(Rng.make(recipe.seed * 104_729 + i + 1)),
    TE.mapLeft((e) => failed(`pretraining transcripts: ${EnvError.message(e)}`))
  )
}

/** Transcripts as training samples in the recipe's rollout layout, each cut to the agent's context. */
export const samples = (ctx: Context, all: ReadonlyArray<Transcript.Transcript>): ReadonlyArray<Trajectory.Trajectory> => {
  const { systemPrompt, actionFormat } = { ...Rollout.defaultOptions, ...ctx.recipe.rollout }
  const { template, tokenizer, contextLength } = ctx.agent
  const render = Render.render({ systemPrompt, actionFormat, template, tokenizer, contextLength })
  return all.flatMap((t) => render(t) ?? [])
}
