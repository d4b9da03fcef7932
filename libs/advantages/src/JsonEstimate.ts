/**
 * The JSON front door of the estimators, behind `mtrl advantages --estimator NAME --input FILE.json`:
 * a pure function from an estimator name and parsed JSON to advantages and returns as nested
 * arrays, or a message naming the bad field. The app reads the file and prints the result.
 *
 * Input (`[batch][time]` arrays must be rectangular and of the shape of `tokenRewards`):
 * ```json
 * { "tokenRewards": [[0, 0, 1]], "responseMask": [[1, 0, 1]],
 *   "values": [[0.5, 0, 0.25]], "turnIndex": [[0, 0, 1]], "groupIds": ["task-1"],
 *   "bootstrapValues": [0], "options": { "gamma": 1, "lambda": 0.95, "whiten": false } }
 * ```
 * Option names are those of the estimator's `Options` (`gamma`, `lambda`, `whiten`,
 * `tokenGamma`, `normalizeByStd`, `epsilon`, `baseline`); omitted options take the defaults.
 *
 * @since 0.1.0
 */
import { Decode } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import * as Estimator from './Estimator.js'
import * as TokenBatch from './TokenBatch.js'

const Finite = new t.Type<number, number, unknown>(
  'a finite number',
  (u): u is number => typeof u === 'number' && Number.isFinite(u),
  (u, c) => (typeof u === 'number' && Number.isFinite(u) ? t.success(u) : t.failure(u, c, 'a finite number')),
  (a) => a
)
const Matrix = t.readonlyArray(t.readonlyArray(Finite))

/**
 * The JSON input (see the module comment).
 *
 * @category codecs
 * @since 0.1.0
 */
export const Input = t.intersection([
  t.type({ tokenRewards: Matrix, responseMask: Matrix }),
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
    E.bind('responseMask', () => flatten('responseMask', input.responseMask, batch, time)),
    E.bind('values', () => optional(input.values, (v) => flatten('values', v, batch, time))),
    E.bind('turnIndex', () => optional(input.turnIndex, (v) => pipe(integers('turnIndex', v), E.chain((rows) => flatten('turnIndex', rows, batch, time))))),
    E.bind('bootstrapValues', () =>
      optional(input.bootstrapValues, (v) => (v.length === batch ? E.right(Float32Array.from(v)) : E.left(`bootstrapValues: expected ${batch} entries (one per row), got ${v.length}`)))
    ),
    E.chain(({ tokenRewards, responseMask, values, turnIndex, bootstrapValues }) => {
      if (input.groupIds !== undefined && input.groupIds.length !== batch)
        return E.left(`groupIds: expected ${batch} entries (one per row), got ${input.groupIds.length}`)
      return TokenBatch.validate({
        batch,
        time,
        tokenRewards,
        responseMask,
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
 * const out = JsonEstimate.run('gae')({ tokenRewards: [[0, 1]], responseMask: [[1, 1]], options: { whiten: false } })
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
      E.bindTo('name'),
      E.bind('input', () => pipe(Decode.decodeStrict('advantages input', Input)(json), E.mapLeft(Decode.formatError))),
      E.bind('estimate', ({ name, input }) => pipe(Estimator.configure(name)(input.options), E.mapLeft(Decode.formatError))),
      E.bind('batch', ({ input }) => toBatch(input)),
      E.chain(({ estimate, batch }) =>
        E.tryCatch(
          () => estimate(batch),
          (error) => (error instanceof Error ? error.message : String(error))
        )
      ),
      E.map((out) => ({ advantages: toRows(out.advantages, out.batch, out.time), returns: toRows(out.returns, out.batch, out.time) }))
    )
