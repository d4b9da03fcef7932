/**
 * The AgentGym environment-server protocol as io-ts codecs: what an mtrl server accepts and
 * answers, and the looser shapes other AgentGym servers answer (`env_idx` ids, `state` for the
 * observation, `score` for the reward). See the README for the shapes per environment family.
 *
 * mtrl's own dialect is AgentGym's `id` style plus three fields that make a StepResult
 * round-trip exactly: `won`, `goal` and an `info` record (`valid`, `score`, `maxScore`,
 * `available_actions`, `extra`). Admissible actions are also sent at the top level as
 * `available_actions`, where ALFWorld clients read them.
 *
 * @since 0.1.0
 */
import type { Env } from '@mtrl/core'
import * as t from 'io-ts'

/**
 * An environment id: a non-negative integer.
 *
 * @category codecs
 * @since 0.1.0
 */
export const EnvId = t.refinement(t.number, (n) => Number.isSafeInteger(n) && n >= 0, 'EnvId')
/** @category models @since 0.1.0 */
export type EnvId = t.TypeOf<typeof EnvId>

/**
 * A seed: a finite number (AgentGym calls it `data_idx`, ALFWorld `game`, WebShop `session_id`).
 *
 * @category codecs
 * @since 0.1.0
 */
export const Seed = t.refinement(t.number, Number.isFinite, 'Seed')

/**
 * Which environment a request is about, in either id style.
 *
 * @category codecs
 * @since 0.1.0
 */
export const IdRef = t.union([t.type({ id: EnvId }), t.type({ env_idx: EnvId })])
/** @category models @since 0.1.0 */
export type IdRef = t.TypeOf<typeof IdRef>

/** @category destructors @since 0.1.0 */
export const idOf = (ref: IdRef): EnvId => ('id' in ref ? ref.id : ref.env_idx)

/**
 * `POST /reset` body: an id and a seed under any of its AgentGym names (`seed` wins).
 *
 * @category codecs
 * @since 0.1.0
 */
export const ResetRequest = t.intersection([IdRef, t.partial({ seed: Seed, data_idx: Seed, game: Seed, session_id: Seed })])
/** @category models @since 0.1.0 */
export type ResetRequest = t.TypeOf<typeof ResetRequest>

/** The seed of a reset request, or `undefined` when it names none. @category destructors @since 0.1.0 */
export const seedOf = (request: ResetRequest): number | undefined => request.seed ?? request.data_idx ?? request.game ?? request.session_id

/**
 * `POST /step` body. `seq` (mtrl extension) numbers the steps of an episode from 0, so that a
 * step retried after a lost answer is answered again instead of being played twice.
 *
 * @category codecs
 * @since 0.1.0
 */
export const StepRequest = t.intersection([IdRef, t.type({ action: t.string }), t.partial({ seq: EnvId })])
/** @category models @since 0.1.0 */
export type StepRequest = t.TypeOf<typeof StepRequest>

/** `POST /close` body. @category codecs @since 0.1.0 */
export const CloseRequest = IdRef

/**
 * `POST /create` answer: `{"id"}`, `{"env_idx"}` or a bare integer (WebShop).
 *
 * @category codecs
 * @since 0.1.0
 */
export const CreateResponse = t.union([EnvId, t.type({ id: EnvId }), t.type({ env_idx: EnvId })])
/** @category models @since 0.1.0 */
export type CreateResponse = t.TypeOf<typeof CreateResponse>

/** @category destructors @since 0.1.0 */
export const createdId = (response: CreateResponse): EnvId => (typeof response === 'number' ? response : 'id' in response ? response.id : response.env_idx)

/**
 * mtrl's `info` on the wire: StepInfo with admissible actions named as AgentGym names them.
 *
 * @category codecs
 * @since 0.1.0
 */
export const WireInfo = t.intersection([
  t.type({ valid: t.boolean, score: t.number, maxScore: t.number }),
  t.partial({ available_actions: t.readonlyArray(t.string), extra: t.record(t.string, t.unknown) })
])
/** @category models @since 0.1.0 */
export type WireInfo = t.TypeOf<typeof WireInfo>

/** mtrl `POST /reset` answer. @category codecs @since 0.1.0 */
export const ResetResponse = t.intersection([
  t.type({ observation: t.string, goal: t.string, info: WireInfo }),
  t.partial({ available_actions: t.readonlyArray(t.string) })
])
/** @category models @since 0.1.0 */
export type ResetResponse = t.TypeOf<typeof ResetResponse>

/** mtrl `POST /step` answer. @category codecs @since 0.1.0 */
export const StepResponse = t.intersection([
  t.type({ observation: t.string, reward: t.number, done: t.boolean, won: t.boolean, info: WireInfo }),
  t.partial({ available_actions: t.readonlyArray(t.string) })
])
/** @category models @since 0.1.0 */
export type StepResponse = t.TypeOf<typeof StepResponse>

/**
 * A `/step` or `/reset` answer of another AgentGym server: the text as `observation` or
 * `state`, and any of `reward`, `score`, `done`, `won`, `available_actions`,
 * `task_description`.
 *
 * @category codecs
 * @since 0.1.0
 */
export const AgentGymAnswer = t.intersection([
  t.union([t.type({ observation: t.string }), t.type({ state: t.string })]),
  t.partial({
    reward: t.number,
    score: t.number,
    done: t.boolean,
    won: t.boolean,
    available_actions: t.readonlyArray(t.string),
    task_description: t.string
  })
])
/** @category models @since 0.1.0 */
export type AgentGymAnswer = t.TypeOf<typeof AgentGymAnswer>

/**
 * `GET /spec` answer (mtrl extension): the environment's `EnvSpec`.
 *
 * @category codecs
 * @since 0.1.0
 */
export const SpecResponse = t.type({ name: t.string, maxTurns: t.number, actionFormat: t.string })
/** @category models @since 0.1.0 */
export type SpecResponse = t.TypeOf<typeof SpecResponse>

/**
 * Every error answer of an mtrl server: `{"error": {"_tag", "message", ...}}`. EnvErrors keep
 * their own fields, so a client can rebuild them.
 *
 * @category codecs
 * @since 0.1.0
 */
export const ErrorBody = t.type({ error: t.intersection([t.type({ _tag: t.string, message: t.string }), t.record(t.string, t.unknown)]) })
/** @category models @since 0.1.0 */
export type ErrorBody = t.TypeOf<typeof ErrorBody>

const toWireInfo = (info: Env.StepInfo): WireInfo => ({
  valid: info.valid,
  score: info.score,
  maxScore: info.maxScore,
  ...(info.admissibleActions === undefined ? {} : { available_actions: info.admissibleActions }),
  ...(info.extra === undefined ? {} : { extra: info.extra })
})

const fromWireInfo = (info: WireInfo): Env.StepInfo => ({
  valid: info.valid,
  score: info.score,
  maxScore: info.maxScore,
  ...(info.available_actions === undefined ? {} : { admissibleActions: info.available_actions }),
  ...(info.extra === undefined ? {} : { extra: info.extra })
})

/** @category conversions @since 0.1.0 */
export const encodeReset = (observation: Env.Observation): ResetResponse => ({
  observation: observation.text,
  goal: observation.goal,
  info: toWireInfo(observation.info),
  ...(observation.info.admissibleActions === undefined ? {} : { available_actions: observation.info.admissibleActions })
})

/** @category conversions @since 0.1.0 */
export const decodeReset = (response: ResetResponse): Env.Observation => ({
  goal: response.goal,
  text: response.observation,
  info: fromWireInfo(response.info)
})

/** @category conversions @since 0.1.0 */
export const encodeStep = (result: Env.StepResult): StepResponse => ({
  observation: result.observation,
  reward: result.reward,
  done: result.done,
  won: result.won,
  info: toWireInfo(result.info),
  ...(result.info.admissibleActions === undefined ? {} : { available_actions: result.info.admissibleActions })
})

/** @category conversions @since 0.1.0 */
export const decodeStep = (response: StepResponse): Env.StepResult => ({
  observation: response.observation,
  reward: response.reward,
  done: response.done,
  won: response.won,
  info: fromWireInfo(response.info)
})
