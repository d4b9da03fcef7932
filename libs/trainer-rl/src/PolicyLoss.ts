/**
 * The policy losses as a closed registry (verl's `register_policy_loss` in `core_algos.py`): a
 * name, the loss's `Options` codec and defaults, its per-token terms (`perToken`) and a one-line
 * doc. Training reaches a loss through here only: an algorithm names one (`Algorithm.policyLoss`),
 * a configuration may name another (`loss.policyLoss`, `loss.options`), and the update's
 * replicas receive the name and the options ({@link Spec}) and look the loss up themselves.
 *
 * | name | module | per token (`rho = pi / pi_old`) | paper |
 * |---|---|---|---|
 * | `ppo` | {@link Ppo} | `max(-A rho, -A clip(rho))`, dual clip for `A < 0` | Schulman et al. 2017; Ye et al. 2020 |
 * | `policyGradient` | {@link PolicyGradient} | `max(-A rho, -A clip(rho))` | GRPO, RLOO, REINFORCE++ |
 * | `gspo` | {@link Gspo} | the same with the sequence's ratio `s_i = (pi(y_i) / pi_old(y_i))^(1/abs(y_i))` | Zheng et al. 2025 |
 * | `cispo` | {@link Cispo} | `-sg[clip(rho)] A log pi` | MiniMax-M1 2025 |
 *
 * A new loss is one module (an `Options` codec, `defaultOptions`, `perToken` over
 * {@link TokenInput}) and its line in {@link registry}; a name without its line is a compile error.
 *
 * @since 0.7.0
 */
import { Decode } from '@mtrl/core'
import type * as tf from '@tensorflow/tfjs'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import type * as Aggregation from './Aggregation.js'
import * as Cispo from './Cispo.js'
import * as Gspo from './Gspo.js'
import { batchLoss } from './internal/batchLoss.js'
import * as PolicyGradient from './PolicyGradient.js'
import * as Ppo from './Ppo.js'

/**
 * What a policy loss reads, all `[batch, time]` float32: `logprobs` (the current policy's,
 * differentiable), `oldLogprobs` (the behaviour policy's), `advantages`, and `mask` (1 on the
 * action tokens; a sequence-level loss averages over a row's masked tokens).
 *
 * @category models
 * @since 0.7.0
 */
export interface TokenInput {
  readonly logprobs: tf.Tensor
  readonly oldLogprobs: tf.Tensor
  readonly advantages: tf.Tensor
  readonly mask: tf.Tensor
}

/**
 * Per token, `[batch, time]`: the loss `L` (differentiable in `logprobs`), whether the loss's
 * clip bound (0/1), and `-log rho` (the approximate KL's term). The caller owns them.
 *
 * @category models
 * @since 0.7.0
 */
export interface Tokens {
  readonly loss: tf.Tensor
  readonly clipped: tf.Tensor
  readonly negLogRatio: tf.Tensor
}

/**
 * A loss over a batch: `loss` (aggregated, differentiable), `clipFraction` and `approxKl`
 * (token means). The caller owns the scalars.
 *
 * @category models
 * @since 0.7.0
 */
export interface Output {
  readonly loss: tf.Scalar
  readonly clipFraction: tf.Scalar
  readonly approxKl: tf.Scalar
}

/**
 * @category codecs
 * @since 0.7.0
 */
export const Name = t.keyof({ ppo: null, policyGradient: null, gspo: null, cispo: null })
/** @category models @since 0.7.0 */
export type Name = t.TypeOf<typeof Name>

/**
 * One registered loss, its options' type erased: `configure` decodes option overrides (unknown
 * fields rejected, omitted ones from `defaultOptions`) and returns the per-token loss.
 *
 * @category models
 * @since 0.7.0
 */
export interface Entry {
  readonly name: Name
  /** One line: what the loss is. */
  readonly doc: string
  /** The options' codec (every field required). */
  readonly Options: t.Mixed
  readonly defaultOptions: Readonly<Record<string, unknown>>
  readonly configure: (overrides: unknown) => E.Either<Decode.DecodeError, (input: TokenInput) => Tokens>
}

const entry = <P extends t.Props>(
  name: Name,
  doc: string,
  Options: t.TypeC<P>,
  defaultOptions: t.TypeOf<t.TypeC<P>>,
  perToken: (options: t.TypeOf<t.TypeC<P>>) => (input: TokenInput) => Tokens
): Entry => {
  const decode = Decode.withDefaults(`${name} options`, Options, defaultOptions)
  return { name, doc, Options, defaultOptions, configure: (overrides) => E.map(perToken)(decode(overrides)) }
}

/**
 * Every policy loss by name.
 *
 * @category instances
 * @since 0.7.0
 */
export const registry: { readonly [K in Name]: Entry } = {
  ppo: entry('ppo', "PPO's clipped surrogate with dual clip", Ppo.TokenOptions, Ppo.defaultTokenOptions, Ppo.perToken),
  policyGradient: entry(
    'policyGradient',
    'the clipped policy gradient (PPO without its dual clip)',
    PolicyGradient.TokenOptions,
    PolicyGradient.defaultTokenOptions,
    PolicyGradient.perToken
  ),
  gspo: entry('gspo', "GSPO: PPO's clip on the sequence's length-normalised ratio", Gspo.Options, Gspo.defaultOptions, Gspo.perToken),
  cispo: entry('cispo', 'CISPO: REINFORCE weighted by the clipped, stop-gradient importance ratio', Cispo.Options, Cispo.defaultOptions, Cispo.perToken)
}

/**
 * All names, in registry order.
 *
 * @category destructors
 * @since 0.7.0
 */
export const names: ReadonlyArray<Name> = Object.keys(Name.keys) as ReadonlyArray<Name>

/**
 * The loss `name` with option overrides decoded from `overrides`; failures name the bad option.
 *
 * @example
 * import { PolicyLoss } from '@mtrl/trainer-rl'
 * PolicyLoss.configure('ppo')({ dualClip: null }) // Right(PPO's per-token loss without dual clip)
 * PolicyLoss.configure('ppo')({ clipLo: 0.1 }) // Left: clipLo: unknown field (did you mean "clipLow"?)
 *
 * @category constructors
 * @since 0.7.0
 */
export const configure =
  (name: Name) =>
  (overrides: unknown): E.Either<Decode.DecodeError, (input: TokenInput) => Tokens> =>
    registry[name].configure(overrides)

/**
 * A loss and its option overrides: what a configuration resolves to and what crosses to the
 * update's replicas (plain data).
 *
 * @category codecs
 * @since 0.7.0
 */
export const Spec = t.type({ name: Name, options: t.record(t.string, t.unknown) })
/** @category models @since 0.7.0 */
export type Spec = t.TypeOf<typeof Spec>

/**
 * The per-token loss of `spec`. Throws on options that do not decode (a configuration is
 * decoded before it trains, `Config.Config`, so this is a programmer's error).
 *
 * @category losses
 * @since 0.7.0
 */
export const perToken = (spec: Spec): ((input: TokenInput) => Tokens) =>
  pipe(
    configure(spec.name)(spec.options),
    E.getOrElseW((error) => {
      throw new Error(Decode.formatError(error))
    })
  )

/**
 * The loss `spec` over a whole batch: {@link perToken} aggregated with `aggregation` (the
 * weights training uses, `Aggregation.weights`). Never disposes its inputs; the caller owns the
 * scalars.
 *
 * @example
 * import * as tf from '@tensorflow/tfjs'
 * import { PolicyLoss } from '@mtrl/trainer-rl'
 * const z = tf.zeros([1, 2])
 * PolicyLoss.loss({ name: 'cispo', options: {} }, 'token-mean')({ logprobs: z, oldLogprobs: z, advantages: tf.ones([1, 2]), mask: tf.ones([1, 2]) })
 * // loss = 0 (-A log pi at log pi = 0)
 *
 * @category losses
 * @since 0.7.0
 */
export const loss = (spec: Spec, aggregation: Aggregation.Mode): ((input: TokenInput) => Output) => batchLoss(perToken(spec), aggregation)
