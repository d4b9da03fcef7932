/**
 * Batched multi-turn rollouts: N environments in lockstep, one `generate` call per turn for all
 * episodes still running, token-in-token-out trajectories.
 *
 * Slot `i` runs environment `envs[i]` on the seed of group `floor(i / groupSize)`: the
 * `groupSize` episodes of a group share env and seed, hence `groupId = "<env>:<seed>"`, which is
 * what group-relative estimators (GRPO, RLOO) compare within.
 *
 * Per turn, in `full` memory, the observation tokens are appended to the slot's KV cache once
 * and the sampled action tokens (stop token included) are kept with their sampler log-probs; the
 * trajectory is the exact sequence the policy saw. When the turn budget is used up, or the next
 * observation (plus room for a reply) would not fit the context, the episode ends with
 * `truncated: true`; `Episode.ending` says which budget ended it, so that a trainer can treat
 * it as a failure (the task is success within the budget) or bootstrap from the value.
 *
 * Each slot samples from its own random stream ({@link Streams}), so an episode does not depend
 * on which other slots share the sampler's batch (a slot's logits do not either, on the cpu and
 * wasm backends: each row of a product is computed alone).
 *
 * @since 0.1.0
 */
import { Numbers, Rng, type Env, type EnvError, type Tokenizer, type Trajectory } from '@mtrl/core'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import * as t from 'io-ts'
import { ActionFormat } from './ActionFormat.js'
import type { Generator } from './Generator.js'
import * as Layout from './Layout.js'
import { Memory, full as fullMemory } from './Memory.js'
import type { RolloutMetrics } from './RolloutMetrics.js'
import { drive } from './internal/drive.js'
import { seedOf as internalSeedOf } from './internal/seedOf.js'

/**
 * Rollout options.
 *
 * - `maxTurns`: turn budget of an episode (the exploration budget);
 * - `maxNewTokens`: reply budget of one turn; a reply that hits it is *cut off* (counted as
 *   `cutOffRate`, not as a format error: its text is still parsed, since mis-scoring length
 *   truncation as a parse error is a known pitfall, tinker-cookbook PR#506);
 * - `temperature`, `topK`, `topP`: sampling (the paper uses temperature 0.7);
 * - `actionFormat`: `plain` or `tagged` (see {@link ActionFormat});
 * - `memory`: `full` or `window(K)` (see {@link Memory});
 * - `systemPrompt`: the system message (the action-format instruction is appended);
 * - `defaultAction`: when set, an unparseable reply, or (with `checkAdmissible`) an action not in
 *   the environment's admissible list, is replaced by this action and counted invalid (Verlog);
 * - `turnsPerSlot`: fixed-turn batching: every slot plays exactly this many turns, starting new
 *   episodes across boundaries; the episode cut at the edge is `truncated` (bootstrapped);
 * - `exploreRate`: at each turn of a slot whose environment lists admissible actions, with this
 *   probability (drawn from the slot's stream) the action is one of those admissible actions,
 *   drawn uniformly, instead of the policy's sample: the policy does not write it, its tokens
 *   (the action written in `actionFormat` and the first stop token, as an expert's reply is
 *   rendered, `Layout.replyTokens`) enter the context as if it had, without sampler log-probs, and the turn is marked `explored`. It lets
 *   RL see the outcome of actions the policy would not sample (epsilon-greedy exploration over
 *   the environment's action set, as TextWorld agents that choose among admissible commands
 *   explore). For training rollouts only: evaluations never explore. Off (0) by default.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Options = t.intersection([
  t.type({
    maxTurns: Numbers.PositiveInt,
    maxNewTokens: Numbers.PositiveInt,
    temperature: Numbers.NonNegative,
    actionFormat: ActionFormat,
    memory: Memory,
    systemPrompt: t.string
  }),
  t.partial({
    topK: Numbers.PositiveInt,
    topP: Numbers.refine('a number in (0, 1]', (n) => n > 0 && n <= 1),
    defaultAction: t.string,
    checkAdmissible: t.boolean,
    turnsPerSlot: Numbers.PositiveInt,
    exploreRate: Numbers.UnitInterval
  })
])
/** @category models @since 0.1.0 */
export type Options = t.TypeOf<typeof Options>

/** @category constructors @since 0.1.0 */
export const defaultOptions: Options = {
  maxTurns: 12,
  maxNewTokens: 32,
  temperature: 0.7,
  actionFormat: 'plain',
  memory: fullMemory,
  systemPrompt: 'You are an agent in a text environment.'
}

/**
 * The sampling randomness of a rollout: one stream per episode slot, derived from a 32-bit `key`
 * and the slot's index in the iteration (`firstSlot` + its index here), so what a slot samples
 * does not depend on which other slots share its batch: a rollout cut into parts (over workers,
 * `@mtrl/rollout-queue`) plays the same episodes as the whole.
 *
 * @category models
 * @since 0.1.0
 */
export interface Streams {
  readonly key: number
  readonly firstSlot: number
}

/**
 * Where the sampling randomness comes from: `rng` (one draw of it is the key, the first slot is
 * 0) or explicit `streams`.
 *
 * @category models
 * @since 0.1.0
 */
export type Sampling = { readonly rng: Rng.Rng } | { readonly streams: Streams }

/**
 * What to run: one environment per slot, one seed per group.
 * `envs.length` must equal `seeds.length * groupSize`.
 *
 * @category models
 * @since 0.1.0
 */
export type Input = {
  readonly envs: ReadonlyArray<Env.Env>
  readonly seeds: ReadonlyArray<number>
  readonly groupSize: number
} & Sampling

/**
 * The streams of a rollout's sampling: `streams` as given, or a key drawn from `rng` (which
 * advances by one draw).
 *
 * @category destructors
 * @since 0.1.0
 */
export const streamsOf = (sampling: Sampling): Streams => ('streams' in sampling ? sampling.streams : { key: sampling.rng.nextUint32(), firstSlot: 0 })

/**
 * The sampling stream of slot `slot` (counted from `streams.firstSlot`).
 *
 * @category destructors
 * @since 0.1.0
 */
export const slotRng = (streams: Streams, slot: number): Rng.Rng => Rng.make((streams.firstSlot + slot) * 4294967296 + (streams.key >>> 0))

/**
 * Why an episode ended: `done` (the environment ended it: won or lost), `turnLimit` (it used
 * `maxTurns`), `contextLimit` (the next observation would not fit the context), `slotBudget`
 * (fixed-turn batching cut it at the slot's turn budget). All but `done` are `truncated`.
 *
 * @category models
 * @since 0.2.0
 */
export type Ending = 'done' | 'turnLimit' | 'contextLimit' | 'slotBudget'

/**
 * One finished episode.
 *
 * - `trajectory`: turns, rewards and outcome; in `full` memory also the exact token sequence;
 *   in `window` memory its `segments` are empty (the tokens are in `samples`);
 * - `samples`: the training sequences: `[trajectory]` in `full` memory, one per turn (in turn
 *   order, each with its own prompt and local turn index 0) in `window` memory;
 * - `slot`: the slot that played it; `index`: its position among that slot's episodes;
 * - `ending`: why it ended (see {@link Ending}).
 *
 * @category models
 * @since 0.1.0
 */
export interface Episode {
  readonly trajectory: Trajectory.Trajectory
  readonly samples: ReadonlyArray<Trajectory.Trajectory>
  readonly slot: number
  readonly index: number
  readonly ending: Ending
}

/**
 * @category models
 * @since 0.1.0
 */
export interface Result {
  readonly episodes: ReadonlyArray<Episode>
  readonly metrics: RolloutMetrics
}

/**
 * The first prompt of an episode that starts with `start` (system message with the action
 * format, then the goal and first observation), as the rollout appends it; and whether a reply
 * of `maxNewTokens` fits after it in `contextLength`. An episode whose prompt does not fit ends
 * before its first turn (`contextLimit`), so a rollout where no prompt fits has no action token
 * to learn from: check one before training.
 *
 * @example
 * import { Rollout } from '@mtrl/rollout'
 * declare const template: import('@mtrl/core').Tokenizer.ChatTemplate
 * declare const start: import('@mtrl/core').Env.Observation
 * const { tokens, fits } = Rollout.firstPrompt(Rollout.defaultOptions, template, 512)(start)
 *
 * @category destructors
 * @since 0.1.0
 */
export const firstPrompt =
  (options: Options, template: Tokenizer.ChatTemplate, contextLength: number) =>
  (start: Env.Observation): { readonly tokens: Int32Array; readonly fits: boolean } => {
    const tokens = template.prompt(Layout.system(options.systemPrompt, options.actionFormat), Layout.firstUser(start.goal, start.text))
    return { tokens, fits: tokens.length + options.maxNewTokens <= contextLength }
  }

/**
 * The group id of an episode: same env and seed, same group.
 *
 * @category destructors
 * @since 0.1.0
 */
export const groupId = (env: string, seed: number): string => `${env}:${seed}`

/**
 * The seed of the `index`-th episode a slot of group `group` plays (index > 0 only happens with
 * fixed-turn batching); slots of one group play the same seeds in the same order.
 *
 * @category destructors
 * @since 0.1.0
 */
export const seedOf: (seeds: ReadonlyArray<number>, group: number, index: number) => number = internalSeedOf

/**
 * Runs every slot to the end of its episode (or its fixed turn budget) and returns the episodes
 * in slot order (then episode order) with the rollout metrics. Environment failures end the
 * rollout with the environment's error. The session's slots are reset as episodes start.
 *
 * @example
 * import { Rng } from '@mtrl/core'
 * import { Rollout } from '@mtrl/rollout'
 * declare const generator: import('@mtrl/rollout').Generator.Generator
 * declare const envs: ReadonlyArray<import('@mtrl/core').Env.Env>
 * const task = Rollout.run(Rollout.defaultOptions)(generator)({ envs, seeds: [1, 2], groupSize: envs.length / 2, rng: Rng.make(0) })
 *
 * @category constructors
 * @since 0.1.0
 */
export const run =
  (options: Options) =>
  (generator: Generator) =>
  (input: Input): TE.TaskEither<EnvError.EnvError, Result> =>
  async () => {
    if (input.envs.length !== input.seeds.length * input.groupSize)
      throw new Error(`Rollout.run: ${input.envs.length} envs for ${input.seeds.length} seeds x groupSize ${input.groupSize}`)
    if (generator.session.slots < input.envs.length)
      throw new Error(`Rollout.run: the sampler session has ${generator.session.slots} slots for ${input.envs.length} envs`)
    if (options.maxNewTokens < 1 || options.maxTurns < 1) throw new Error('Rollout.run: maxNewTokens and maxTurns must be >= 1')
    return drive(options, generator, input)
  }
