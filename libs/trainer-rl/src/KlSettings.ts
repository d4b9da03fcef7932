/**
 * The settings of a KL term to a frozen reference policy, without the maths (`Kl` estimates it):
 * which estimator (`k1`, `k2`, `k3`), where the term goes (`reward`, `loss`, `none`) and its
 * coefficient's controller. Tensor-free: a page or a recipe reads it without TensorFlow.js.
 *
 * @since 0.7.0
 */
import * as t from 'io-ts'
import { KlController } from './KlController.js'

/**
 * @category codecs
 * @since 0.1.0
 */
export const Estimator = t.keyof({ k1: null, k2: null, k3: null })
/** @category models @since 0.1.0 */
export type Estimator = t.TypeOf<typeof Estimator>

/**
 * Where the KL term goes: `reward` (per-token penalty before advantages) or `loss` (added to the
 * policy loss, differentiable), or `none`.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Placement = t.keyof({ reward: null, loss: null, none: null })
/** @category models @since 0.1.0 */
export type Placement = t.TypeOf<typeof Placement>

/**
 * A KL term: its estimator, where it goes, and its coefficient's controller.
 *
 * @category codecs
 * @since 0.5.0
 */
export const Settings = t.type({ estimator: Estimator, placement: Placement, controller: KlController })
/** @category models @since 0.5.0 */
export type Settings = t.TypeOf<typeof Settings>

/** No KL term (the controller is kept for a later placement). @category constants @since 0.5.0 */
export const none: Settings = { estimator: 'k3', placement: 'none', controller: { _tag: 'fixed', coef: 0.001 } }
