/**
 * Learning-rate schedule: linear warm-up, then cosine decay to a floor (Loshchilov & Hutter
 * 2017, https://arxiv.org/abs/1608.03983, without restarts), the usual fine-tuning schedule.
 *
 * ```
 * step < warmup:  lr = peak * (step + 1) / warmup
 * otherwise:      p = (step - warmup) / max(1, total - warmup)   (clamped to [0, 1])
 *                 lr = peak * (minRatio + (1 - minRatio) * (1 + cos(pi p)) / 2)
 * ```
 *
 * @since 0.1.0
 */
import * as t from 'io-ts'

/**
 * - `peak`: the learning rate after warm-up;
 * - `warmupSteps`: steps of linear warm-up (0: none);
 * - `totalSteps`: steps of the whole run (the cosine reaches its floor there);
 * - `minRatio`: the floor as a fraction of `peak` (0: decay to zero).
 *
 * @category codecs
 * @since 0.1.0
 */
export const Options = t.type({ peak: t.number, warmupSteps: t.number, totalSteps: t.number, minRatio: t.number })
/** @category models @since 0.1.0 */
export type Options = t.TypeOf<typeof Options>

/**
 * The learning rate at `step` (0-based).
 *
 * @example
 * import { Schedule } from '@mtrl/optim'
 * const lr = Schedule.learningRate({ peak: 1e-3, warmupSteps: 10, totalSteps: 100, minRatio: 0.1 })(50)
 *
 * @category destructors
 * @since 0.1.0
 */
export const learningRate =
  (options: Options) =>
  (step: number): number => {
    const { peak, warmupSteps, totalSteps, minRatio } = options
    if (step < warmupSteps) return (peak * (step + 1)) / warmupSteps
    const p = Math.min(1, Math.max(0, (step - warmupSteps) / Math.max(1, totalSteps - warmupSteps)))
    return peak * (minRatio + ((1 - minRatio) * (1 + Math.cos(Math.PI * p))) / 2)
  }

/**
 * A constant learning rate.
 *
 * @category constructors
 * @since 0.1.0
 */
export const constant = (lr: number): Options => ({ peak: lr, warmupSteps: 0, totalSteps: 1, minRatio: 1 })
