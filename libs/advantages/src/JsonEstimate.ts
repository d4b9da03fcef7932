/**
 * The JSON front door of the estimators, behind `mtrl advantages --estimator NAME --input FILE.json`:
 * a pure function from an estimator name and parsed JSON to advantages and returns as nested
 * arrays, or a message naming the bad field. The app reads the file and prints the result.
 *
 * Input (`[batch][time]` arrays must be rectangular and of the shape of `tokenRewards`):
 * ```json
 * { "tokenRewards": [[0, 0, 1]], "actionMask": [[1, 0, 1]],
 *   "values": [[0.5, 0, 0.25]], "turnIndex": [[0, 0, 1]], "groupIds": ["task-1"],
 *   "bootstrapValues": [0], "options": { "gamma": 1, "lambda": 0.95, "whiten": false } }
 * ```
 * Or episodes as the rollout records them, one `Trajectory` each (`@mtrl/core`'s codec), with
 * optional per-token `values` (one array per trajectory, as long as its tokens) and
 * `bootstrapValues`; they go through `EpisodeRows`, the trainer's own path, and the output has
 * one array per trajectory, aligned with its tokens (0 off the action tokens):
 * ```json
 * { "trajectories": [{ "env": "e", "seed": 1, "groupId": "e:1", "segments": [...], "turns": [...],
 *   "turnRewards": [0, 1], "won": true, "truncated": false }], "options": { "whiten": false } }
 * ```
 * Option names are those of the estimator's `Options` (`gamma`, `lambda`, `whiten`,
 * `tokenGamma`, `normalizeByStd`, `epsilon`, `baseline`); omitted options take the defaults.
 *
 * @since 0.1.0
 */
import { Decode, Numbers, Trajectory } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import * as EpisodeRows from './EpisodeRows.js'
import * as Estimator from './Estimator.js'
import * as TokenBatch from './TokenBatch.js'

const Finite = Numbers.Finite
const Matrix = t.readonlyArray(t.readonlyArray(Finite))

/**
 * The JSON input (see the module comment).
 *
 * @category codecs
 * @since 0.1.0
 */
export const Input = t.intersection([
  t.type({ tokenRewards: Matrix, actionMask: Matrix }),
  t.partial({
    values: Matrix,
    turnIndex: Matrix,
    groupIds: t.readonlyArray(t.string),
    bootstrapValues: t.readonlyArray(Finite),
    options: t.UnknownRecord
  })
])
/** @category models @since 0.1.0 */
export type Input = t.TypeOf<typeof Input>

/**
 * Episodes instead of token rows (see the module comment).
 *
 * @category codecs
 * @since 0.2.0
 */
export const TrajectoriesInput = t.intersection([
  t.type({ trajectories: t.readonlyArray(Trajectory.Trajectory) }),
  t.partial({ values: Matrix, bootstrapValues: t.readonlyArray(Finite), options: t.UnknownRecord })
])
/** @category models @since 0.2.0 */
export type TrajectoriesInput = t.TypeOf<typeof TrajectoriesInput>

/**
 * Advantages and returns, `[batch][time]`, 0 off the mask.
 *
 * @category models
 * @since 0.1.0
 */
export interface Output {
  readonly advantages: number[][]
  readonly returns: number[][]
}

type Matrix = t.TypeOf<typeof Matrix>

const flatten = (field: string, rows: Matrix, batch: number, time: number): E.Either<string, Float32Array> => {
  if (rows.length !== batch) return E.left(`${field}: expected ${batch} rows (as tokenRewards), got ${rows.length}`)
  const out = new Float32Array(batch * time)
  for (let b = 0; b < batch; b++) {
    const row = rows[b]!
    if (row.length !== time) return E.left(`${field}[${b}]: expected ${time} entries (as tokenRewards[0]), got ${row.length}`)
    out.set(row, b * time)
  }
  return E.right(out)
}

const integers = (field: string, rows: Matrix): E.Either<string, Matrix> => {
  for (const [b, row] of rows.entries())
    for (const [i, x] of row.entries()) if (!Number.isInteger(x)) return E.left(`${field}[${b}][${i}]: expected an integer, got ${x}`)
  return E.right(rows)
}

const optional = <A>(value: A | undefined, f: (a: A) => E.Either<string, Float32Array>): E.Either<string, Float32Array | undefined> =>
  value === undefined ? E.right(undefined) : f(value)

const toBatch = (input: Input): E.Either<string, TokenBatch.TokenBatch> => {
  const batch = input.tokenRewards.length
  const time = input.tokenRewards[0]?.length ?? 0
  return pipe(
    E.Do,
    E.bind('tokenRewards', () => flatten('tokenRewards', input.tokenRewards, batch, time)),
    E.bind('actionMask', () => flatten('actionMask', input.actionMask, batch, time)),
    E.bind('values', () => optional(input.values, (v) => flatten('values', v, batch, time))),
    E.bind('turnIndex', () =>
      optional(input.turnIndex, (v) =>
        pipe(
          integers('turnIndex', v),
          E.chain((rows) => flatten('turnIndex', rows, batch, time))
        )
      )
    ),
    E.bind('bootstrapValues', () =>
      optional(input.bootstrapValues, (v) =>
        v.length === batch ? E.right(Float32Array.from(v)) : E.left(`bootstrapValues: expected ${batch} entries (one per row), got ${v.length}`)
      )
    ),
    E.chain(({ tokenRewards, actionMask, values, turnIndex, bootstrapValues }) => {
      if (input.groupIds !== undefined && input.groupIds.length !== batch)
        return E.left(`groupIds: expected ${batch} entries (one per row), got ${input.groupIds.length}`)
      return TokenBatch.validate({
        batch,
        time,
        tokenRewards,
        actionMask,
        ...(values === undefined ? {} : { values }),
        ...(turnIndex === undefined ? {} : { turnIndex: Int32Array.from(turnIndex) }),
        ...(input.groupIds === undefined ? {} : { groupIds: input.groupIds }),
        ...(bootstrapValues === undefined ? {} : { bootstrapValues })
      })
    })
  )
}

const toRows = (x: Float32Array, batch: number, time: number): number[][] =>
  Array.from({ length: batch }, (_, b) => Array.from(x.subarray(b * time, (b + 1) * time)))

/**
 * Runs the estimator `estimator` (a registry name) on JSON input. Every failure is a message:
 * unknown estimator, unknown or bad fields and options (with their path), ragged rows, a mask of
 * the wrong shape, non-finite numbers, rewards off the mask, missing `groupIds` or `turnIndex`.
 *
 * @example
 * import { JsonEstimate } from '@mtrl/advantages'
 * const out = JsonEstimate.run('gae')({ tokenRewards: [[0, 1]], actionMask: [[1, 1]], options: { whiten: false } })
 * // Right({ advantages: [[1, 1]], returns: [[1, 1]] })
 *
 * @category destructors
 * @since 0.1.0
 */
export const run =
  (estimator: string) =>
  (json: unknown): E.Either<string, Output> =>
    pipe(
      Estimator.Name.decode(estimator),
      E.mapLeft(() => `unknown estimator ${JSON.stringify(estimator)} (expected one of ${Estimator.names.join(', ')})`),
      E.chain((name) => (typeof json === 'object' && json !== null && 'trajectories' in json ? runTrajectories(name, json) : runRows(name, json)))
    )

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error))

const runRows = (name: Estimator.Name, json: unknown): E.Either<string, Output> =>
  pipe(
    E.Do,
    E.bind('input', () => pipe(Decode.decodeStrict('advantages input', Input)(json), E.mapLeft(Decode.formatError))),
    E.bind('estimate', ({ input }) => pipe(Estimator.configure(name)(input.options), E.mapLeft(Decode.formatError))),
    E.bind('batch', ({ input }) => toBatch(input)),
    E.chain(({ estimate, batch }) => E.tryCatch(() => estimate(batch), message)),
    E.map((out) => ({ advantages: toRows(out.advantages, out.batch, out.time), returns: toRows(out.returns, out.batch, out.time) }))
  )

const runTrajectories = (name: Estimator.Name, json: unknown): E.Either<string, Output> =>
  pipe(
    E.Do,
    E.bind('input', () => pipe(Decode.decodeStrict('advantages input', TrajectoriesInput)(json), E.mapLeft(Decode.formatError))),
    E.bind('estimate', ({ input }) => pipe(Estimator.configure(name)(input.options), E.mapLeft(Decode.formatError))),
    E.chain(({ input, estimate }) => {
      const { trajectories, values, bootstrapValues } = input
      if (values !== undefined && values.length !== trajectories.length)
        return E.left(`values: expected ${trajectories.length} rows (one per trajectory), got ${values.length}`)
      if (bootstrapValues !== undefined && bootstrapValues.length !== trajectories.length)
        return E.left(`bootstrapValues: expected ${trajectories.length} entries (one per trajectory), got ${bootstrapValues.length}`)
      for (const [i, trajectory] of trajectories.entries()) {
        const n = Trajectory.length(trajectory)
        if (values !== undefined && values[i]!.length !== n)
          return E.left(`values[${i}]: expected ${n} entries (the tokens of trajectories[${i}]), got ${values[i]!.length}`)
        if ((bootstrapValues?.[i] ?? 0) !== 0 && !trajectory.truncated)
          return E.left(`bootstrapValues[${i}]: trajectories[${i}] ended (not truncated): nothing follows it, its bootstrap is 0`)
      }
      return E.tryCatch(() => {
        const rows = EpisodeRows.make(
          trajectories.map((trajectory, i) => ({
            samples: [trajectory],
            turnRewards: trajectory.turnRewards,
            groupId: trajectory.groupId,
            ...(values === undefined ? {} : { values: [values[i]!] }),
            ...(bootstrapValues === undefined ? {} : { bootstrapValue: bootstrapValues[i]! })
          }))
        )
        const out = estimate(rows.batch)
        const back = (x: Float32Array): number[][] => {
          const targets = trajectories.map((trajectory) => [new Float32Array(Trajectory.length(trajectory))])
          EpisodeRows.scatter(rows, x)(targets)
          return targets.map(([row]) => Array.from(row!))
        }
        return { advantages: back(out.advantages), returns: back(out.returns) }
      }, message)
    })
  )
