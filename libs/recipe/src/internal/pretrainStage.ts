/**
 * A pretrain stage (issue 40, docs/decisions/0016): transcripts of games played without a plan
 * (`@mtrl/pretrain`'s `Corpus`), rendered in the recipe's rollout layout, then next-token
 * training on them with trainer-sft's loop (`Driver`: schedule, clipping, replicas, mid-stage
 * checkpoints, resume), every token but padding trained on (`contextWeight` 1: the commands'
 * mean NLL plus the rest's). The same recipe seed gives the same transcripts, so the tokenizer of
 * a scratch model (built from them before the agent exists) and a resumed stage see the very
 * corpus the stage trains on.
 */
import { Trajectory } from '@mtrl/core'
import { Progress } from '@mtrl/experiment'
import { Corpus, Mixture } from '@mtrl/pretrain'
import { Sft } from '@mtrl/trainer-sft'
import * as E from 'fp-ts/lib/Either.js'
import type { PretrainStage } from '../Recipe.js'
import type { RunError } from '../RunError.js'
import type { Context } from './context.js'
import { record, resumeAgent, runSettings, train } from './sftStage.js'
import { samples, transcripts } from './transcripts.js'

export { transcripts }

/**
 * The SFT loop's settings a pretrain stage starts from (under the stage's own): one epoch, every
 * token trained on (`contextWeight` 1), 2% held out, batches grouped by length (transcripts
 * differ in length tenfold), 50 warm-up steps.
 */
export const defaults: Sft.Settings = { epochs: 1, contextWeight: 1, heldOutFraction: 0.02, groupByLength: true, warmupSteps: 50 }

/** The label of a stage: `pretrain on textworld w1-8 o1-12 q1-8 + cooking + alfworld/train`. */
export const label = (stage: PretrainStage): string => Mixture.label(stage.mixture ?? Corpus.defaultSettings.mixture)

/** The SFT options of pretrain stage `i`: the library's defaults < the pretrain defaults < the stage's, seeded per stage. */
const sftOptions = (ctx: Context, i: number, stage: PretrainStage): Sft.Options => {
  const { kind: _k, episodes: _e, mixture: _m, invalidShare: _s, maxTurns: _t, replicas: _r, checkpointEvery: _c, ...settings } = stage
  return { ...Sft.defaultOptions, ...defaults, ...settings, seed: ctx.recipe.seed + i }
}

/**
 * Runs pretrain stage `i` on the context's agent, in place (a resumed stage continues from its
 * mid-stage checkpoint's agent). Its steps go to the run folder as an SFT stage's do.
 */
export const run = async (ctx: Context, i: number, stage: PretrainStage, name: string): Promise<E.Either<RunError, void>> => {
  if (ctx.resume) Progress.truncateMetrics(ctx.run, { ...ctx.progress, nextStage: i }, 0)
  const t0 = performance.now()
  const from = await resumeAgent(ctx, i, name)
  if (E.isLeft(from)) return from
  const played = await transcripts(ctx.recipe, i, stage)()
  if (E.isLeft(played)) return played
  const data = samples(ctx, played.right)
  const tokens = data.reduce((n, d) => n + Trajectory.length(d), 0)
  const turns = data.reduce((n, d) => n + d.turns.length, 0)
  ctx.reporter.line(
    `${name}: ${data.length} transcripts (of ${played.right.length} games, ${played.right.filter((t) => t.won).length} won by chance), ${turns} commands, ${tokens} tokens, in ${((performance.now() - t0) / 1000).toFixed(1)} s`
  )
  const sft = sftOptions(ctx, i, stage)
  const training = { ...Sft.defaultRunSettings, ...runSettings(stage), sft, label: 'pretrain steps' }
  const outcome = await train(ctx, i, name, training, data, from.right, undefined)
  return E.map(() => undefined)(record(ctx, i, name, outcome, { from: from.right, tokens, epochs: sft.epochs, t0 }))
}
