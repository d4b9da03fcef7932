/**
 * An agent: the policy being trained with what training and evaluation need beside it: an
 * optional critic, the tokenizer, the chat template, the context length, and a frozen reference
 * copy of the policy (the KL anchor), made on first use. Loaded from a checkpoint (policy and
 * critic) or any pretrained folder, saved as a checkpoint, disposed as one.
 *
 * @since 0.1.0
 */
import type { Tokenizer } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import * as ChatTemplate from './ChatTemplate.js'
import * as Checkpoint from './Checkpoint.js'
import type * as Critic from './Critic.js'
import type * as HuggingFace from './HuggingFace.js'
import * as Policy from './Policy.js'
import * as PolicyError from './PolicyError.js'
import * as Pretrained from './Pretrained.js'

/**
 * An agent; `dispose` frees the policy, the critic and the reference.
 *
 * @category models
 * @since 0.1.0
 */
export interface Agent {
  readonly policy: Policy.Policy
  readonly critic: Critic.Critic | undefined
  readonly tokenizer: Tokenizer.Tokenizer
  readonly template: Tokenizer.ChatTemplate
  readonly contextLength: number
  /** A frozen copy of the policy as it is at the first call (for KL); made once. */
  readonly reference: () => Policy.Policy
  readonly dispose: () => void
}

/**
 * An agent from its parts (it owns them from now on).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (
  policy: Policy.Policy,
  critic: Critic.Critic | undefined,
  tokenizer: Tokenizer.Tokenizer,
  template: Tokenizer.ChatTemplate,
  contextLength: number
): Agent => {
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

/**
 * The agent with `critic` (a new agent over the same policy, tokenizer and template; its
 * reference is made afresh on first use).
 *
 * @category combinators
 * @since 0.1.0
 */
export const withCritic = (agent: Agent, critic: Critic.Critic): Agent => make(agent.policy, critic, agent.tokenizer, agent.template, agent.contextLength)

/**
 * The agent of a policy that carries its tokenizer (the template follows from it, the context
 * is the model's); without one the policy and critic are freed and `missing` is the error.
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromPolicy = (missing: PolicyError.PolicyError, policy: Policy.Policy, critic?: Critic.Critic): E.Either<PolicyError.PolicyError, Agent> => {
  if (policy.tokenizer !== undefined) return E.right(make(policy, critic, policy.tokenizer, ChatTemplate.make(policy.tokenizer), policy.config.maxLen))
  policy.dispose()
  critic?.dispose()
  return E.left(missing)
}

/**
 * The agent of a pretrained folder (`Pretrained.load`: an mtrl checkpoint, or a Hugging Face
 * folder with `options`); only the policy is kept.
 *
 * @example
 * import { Agent } from '@mtrl/policy'
 * const agent = await Agent.pretrained('fixtures/hf/tiny-qwen2', { maxLen: 256 })()
 *
 * @category constructors
 * @since 0.1.0
 */
export const pretrained = (dir: string, options: HuggingFace.LoadOptions = {}): TE.TaskEither<PolicyError.PolicyError, Agent> =>
  pipe(
    Pretrained.load(dir, options),
    TE.chainEitherK((policy) => fromPolicy(PolicyError.fileError(dir, 'no tokenizer.json'), policy))
  )

/**
 * The agent saved in a checkpoint folder (policy and critic).
 *
 * @category constructors
 * @since 0.1.0
 */
export const load = (dir: string): TE.TaskEither<PolicyError.PolicyError, Agent> =>
  pipe(
    Checkpoint.load(dir),
    TE.chainEitherK(({ policy, critic }) => fromPolicy(PolicyError.fileError(dir, 'the checkpoint has no tokenizer'), policy, critic))
  )

/**
 * Saves the agent (policy and critic) as a checkpoint with `extra` metadata.
 *
 * @category destructors
 * @since 0.1.0
 */
export const save = (dir: string, agent: Agent, extra: unknown): TE.TaskEither<PolicyError.PolicyError, void> =>
  Checkpoint.save(dir, { policy: agent.policy, ...(agent.critic === undefined ? {} : { critic: agent.critic }), extra })
