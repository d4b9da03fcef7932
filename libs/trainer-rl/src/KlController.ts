/**
 * The KL coefficient beta: fixed, or adaptive (Ziegler et al. 2019,
 * https://arxiv.org/abs/1909.08593; verl `AdaptiveKLController`):
 *
 * ```
 * beta <- beta * (1 + clip(KL / target - 1, -0.2, 0.2) * n / horizon)
 * ```
 *
 * where KL is the observed mean KL and n the number of samples of the step.
 *
 * @since 0.1.0
 */
import { Numbers } from '@mtrl/core'
import * as t from 'io-ts'

/**
 * @category codecs
 * @since 0.1.0
 */
export const KlController = t.union([
  t.type({ _tag: t.literal('fixed'), coef: Numbers.NonNegative }),
  t.type({ _tag: t.literal('adaptive'), coef: Numbers.NonNegative, target: Numbers.Positive, horizon: Numbers.Positive })
])
/** @category models @since 0.1.0 */
export type KlController = t.TypeOf<typeof KlController>

/** @category constructors @since 0.1.0 */
export const fixed = (coef: number): KlController => ({ _tag: 'fixed', coef })

/** @category constructors @since 0.1.0 */
export const adaptive = (coef: number, target: number, horizon: number): KlController => ({ _tag: 'adaptive', coef, target, horizon })

/**
 * The controller after observing `kl` over `n` samples (a fixed one is returned unchanged).
 *
 * @category combinators
 * @since 0.1.0
 */
export const update =
  (kl: number, n: number) =>
  (controller: KlController): KlController => {
    switch (controller._tag) {
      case 'fixed':
        return controller
      case 'adaptive': {
        const error = Math.min(0.2, Math.max(-0.2, kl / controller.target - 1))
        return { ...controller, coef: controller.coef * (1 + (error * n) / controller.horizon) }
      }
    }
  }
