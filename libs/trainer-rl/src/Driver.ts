/**
 * A trainer driven through a stage: a check that a reply fits after the environment's first
 * prompt, then `Trainer.iterate` to a budget of iterations, with a checkpoint every
 * `config.checkpointEvery` iterations and on request to stop, continuing (when resuming) from
 * the newest checkpoint with the same random streams (with `maxStaleness`, the rollouts played
 * ahead are not in a checkpoint: a resumed stage plays its next iteration anew). What
 * `Sft.trainAsync` is for SFT; the caller logs the metrics it is handed.
 *
 * @since 0.1.0
 */
import { EnvError, type Env, type Tokenizer } from '@mtrl/core'
import { Rollout } from '@mtrl/rollout'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import * as Checkpointing from './Checkpointing.js'
import type { Metrics } from './Metrics.js'
import * as Trainer from './Trainer.js'

/**
 * Why a stage could not go on: an environment failed, a checkpoint could not be written or
 * restored, or no reply fits after the first prompt in the model's context.
 *
 * @category models
 * @since 0.1.0
 */
export type DriverError =
  | { readonly _tag: 'Env'; readonly error: EnvError.EnvError }
  | { readonly _tag: 'Checkpoint'; readonly error: Checkpointing.CheckpointError }
  | { readonly _tag: 'ContextTooShort'; readonly env: string; readonly promptTokens: number; readonly maxNewTokens: number; readonly contextLength: number }

/**
 * The error as a sentence.
 *
 * @category destructors
 * @since 0.1.0
 */
export const message = (error: DriverError): string => {
  switch (error._tag) {
    case 'Env':
      return EnvError.message(error.error)
    case 'Checkpoint':
      return Checkpointing.message(error.error)
    case 'ContextTooShort':
      return `a prompt of ${error.env} has ${error.promptTokens} tokens; with maxNewTokens ${error.maxNewTokens} no action fits the model's context of ${error.contextLength} (give the model a longer context, e.g. model.maxLen)`
  }
}

/**
 * How a stage ended: its budget reached, or stopped on request after a checkpoint.
 *
 * @category models
 * @since 0.1.0
 */
export type Outcome = { readonly _tag: 'Finished' } | { readonly _tag: 'Stopped'; readonly iteration: number }

/**
 * What to drive a trainer to, and where its checkpoints go.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** The iteration count to reach (a resumed trainer continues towards it). */
  readonly iterations: number
  /** The stage's checkpoint folder (`iter-<n>` inside). */
  readonly dir: string
  /** Continue from the newest checkpoint under `dir` (none: from the trainer's state). */
  readonly resume: boolean
  /** Polled after each iteration: when true, a checkpoint is written and the stage stops. */
  readonly stop?: () => boolean
  /** When resuming: the iteration the trainer continues from (0 when `dir` held none). */
  readonly onResume?: (iteration: number) => void
  /** After each iteration: its metrics and the trainer's iteration count. */
  readonly onIteration?: (metrics: Metrics, iteration: number) => void
}

/**
 * Fails fast when the environment's first prompt leaves no room for a reply in the model's
 * context: every episode would end before its first turn and no action token would be learned
 * from (an update would fail deep in TensorFlow.js). Plays `reset(0)` of one fresh environment.
 *
 * @category destructors
 * @since 0.1.0
 */
export const checkContext =
  (rollout: Rollout.Options, template: Tokenizer.ChatTemplate, contextLength: number) =>
  (source: Env.EnvSource): TE.TaskEither<DriverError, void> =>
  async () => {
    const env = source.make()
    try {
      const start = await env.reset(0)()
      if (E.isLeft(start)) return E.left({ _tag: 'Env', error: start.left })
      const { tokens, fits } = Rollout.firstPrompt(rollout, template, contextLength)(start.right)
      return fits
        ? E.right(undefined)
        : E.left({ _tag: 'ContextTooShort', env: source.name, promptTokens: tokens.length, maxNewTokens: rollout.maxNewTokens, contextLength })
    } finally {
      await env.close()()
    }
  }

/** Restores the newest checkpoint under `dir` when resuming; returns the iteration the trainer continues from. */
const resumed = async (options: Options, trainer: Trainer.Trainer): Promise<E.Either<DriverError, void>> => {
  if (!options.resume) return E.right(undefined)
  const at = await Checkpointing.resume(options.dir)(trainer)()
  if (E.isLeft(at)) return E.left({ _tag: 'Checkpoint', error: at.left })
  options.onResume?.(at.right)
  return E.right(undefined)
}

/**
 * Iterates the trainer to `options.iterations`, handing each iteration's metrics to
 * `onIteration`; saves a checkpoint when the iteration count is a multiple of
 * `config.checkpointEvery` (0: never) or a stop is requested, and then stops. The first
 * environment or checkpoint failure ends the stage as a `Left`.
 *
 * @example
 * import { Driver } from '@mtrl/trainer-rl'
 * declare const trainer: import('@mtrl/trainer-rl').Trainer.Trainer
 * const onIteration = (m: Record<string, number>) => console.log(m['episode/success_rate'])
 * const outcome = await Driver.run({ iterations: 10, dir: 'checkpoints/stage-1', resume: true, onIteration })(trainer)()
 *
 * @category combinators
 * @since 0.1.0
 */
export const run =
  (options: Options) =>
  (trainer: Trainer.Trainer): TE.TaskEither<DriverError, Outcome> =>
  async () => {
    const ready = await resumed(options, trainer)
    if (E.isLeft(ready)) return ready
    const every = trainer.setup.config.checkpointEvery
    try {
      while (trainer.state.iteration < options.iterations) {
        // no episodes are played ahead for iterations past the budget or after a requested stop
        const following = options.stop?.() === true ? 0 : options.iterations - trainer.state.iteration - 1
        const metrics = await Trainer.iterate(trainer, { following })()
        if (E.isLeft(metrics)) return E.left({ _tag: 'Env', error: metrics.left })
        options.onIteration?.(metrics.right, trainer.state.iteration)
        const stop = options.stop?.() === true
        if ((every > 0 && trainer.state.iteration % every === 0) || stop) {
          const saved = await Checkpointing.save(options.dir)(trainer)()
          if (E.isLeft(saved)) return E.left({ _tag: 'Checkpoint', error: saved.left })
        }
        if (stop) return E.right({ _tag: 'Stopped', iteration: trainer.state.iteration })
      }
      return E.right({ _tag: 'Finished' })
    } finally {
      await Trainer.settle(trainer)
    }
  }
