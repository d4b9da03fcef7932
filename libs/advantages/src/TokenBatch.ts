/**
 * The input every estimator takes: token-level arrays of shape `[batch, time]`, stored
 * row-major in flat typed arrays (`x[b * time + t]`), plus the per-row bookkeeping that some
 * estimators need (turn of each token, group of each row, bootstrap value of truncated rows).
 *
 * Invariant shared by every estimator: **rewards live on action tokens**. A non-zero reward on
 * a token with `actionMask = 0` is rejected, because the GAE family skips those tokens (as
 * verl does) and the reward would silently vanish. Put a turn's reward on its last action token
 * (`EpisodeRows.make` does so).
 *
 * @since 0.1.0
 */
import * as E from 'fp-ts/lib/Either.js'

/**
 * Estimator input. Shapes in brackets; all arrays are row-major.
 *
 * - `tokenRewards [batch, time]`: reward of each token, 0 off the mask;
 * - `actionMask [batch, time]`: 1 on action (trainable) tokens, 0 on prompt, observation and
 *   padding tokens; only the values 0 and 1 are allowed;
 * - `values [batch, time]`: the critic's V at each token (GAE family); only action tokens are read;
 * - `turnIndex [batch, time]`: turn of each token (turn-level estimators); read on action tokens,
 *   where it must be >= 0 and non-decreasing along a row;
 * - `groupIds [batch]`: rows with the same id answer the same task (group-relative estimators);
 * - `bootstrapValues [batch]`: V of the state after the row's last action token, for rows cut
 *   by a budget (truncated); 0, or absent, for rows that ended (terminal bootstrap 0).
 *
 * @category models
 * @since 0.1.0
 */
export interface TokenBatch {
  readonly batch: number
  readonly time: number
  readonly tokenRewards: Float32Array
  readonly actionMask: Float32Array
  readonly values?: Float32Array
  readonly turnIndex?: Int32Array
  readonly groupIds?: ReadonlyArray<string>
  readonly bootstrapValues?: Float32Array
}

/**
 * Estimator output, both `[batch, time]` row-major and 0 off the mask.
 *
 * - `advantages`: what multiplies the policy-gradient term of each action token;
 * - `returns`: the value target of each action token (what the critic regresses onto).
 *
 * @category models
 * @since 0.1.0
 */
export interface Estimate {
  readonly batch: number
  readonly time: number
  readonly advantages: Float32Array
  readonly returns: Float32Array
}

/**
 * The per-token checks of {@link validate} without messages, in one predictable-branch pass
 * (`x - x === 0` is false exactly for NaN and +-Infinity). On failure `validate` reruns the
 * slow, message-building loop.
 */
const isValidFast = (input: TokenBatch): boolean => {
  const { batch, time, tokenRewards, actionMask, values, turnIndex, bootstrapValues } = input
  for (let b = 0; b < batch; b++) {
    if (bootstrapValues !== undefined && bootstrapValues[b]! - bootstrapValues[b]! !== 0) return false
    let lastTurn = 0
    for (let i = b * time, end = (b + 1) * time; i < end; i++) {
      const m = actionMask[i]!
      const r = tokenRewards[i]!
      if (m === 1) {
        if (r - r !== 0) return false
        if (values !== undefined && values[i]! - values[i]! !== 0) return false
        if (turnIndex !== undefined) {
          const k = turnIndex[i]!
          if (k < lastTurn) return false
          lastTurn = k
        }
      } else if (m !== 0 || r !== 0) return false
    }
  }
  return true
}

const checkLength = (field: string, actual: number, expected: number, what: string): string | undefined =>
  actual === expected ? undefined : `${field}: expected ${expected} entries (${what}), got ${actual}`

/**
 * Checks the shapes and the invariants above; the message names the offending field and, for
 * per-token faults, the row and time step (`actionMask[1][3]: expected 0 or 1, got 0.5`).
 *
 * @category destructors
 * @since 0.1.0
 */
export const validate = (input: TokenBatch): E.Either<string, TokenBatch> => {
  const { batch, time, tokenRewards, actionMask, values, turnIndex, groupIds, bootstrapValues } = input
  if (!Number.isInteger(batch) || batch < 0) return E.left(`batch: expected a non-negative integer, got ${batch}`)
  if (!Number.isInteger(time) || time < 0) return E.left(`time: expected a non-negative integer, got ${time}`)
  const size = batch * time
  const shape = `batch ${batch} x time ${time}`
  const lengthError =
    checkLength('tokenRewards', tokenRewards.length, size, shape) ??
    checkLength('actionMask', actionMask.length, size, shape) ??
    (values && checkLength('values', values.length, size, shape)) ??
    (turnIndex && checkLength('turnIndex', turnIndex.length, size, shape)) ??
    (groupIds && checkLength('groupIds', groupIds.length, batch, `one per row, batch ${batch}`)) ??
    (bootstrapValues && checkLength('bootstrapValues', bootstrapValues.length, batch, `one per row, batch ${batch}`))
  if (lengthError !== undefined) return E.left(lengthError)
  if (isValidFast(input)) return E.right(input)
  const at = (i: number): string => `[${Math.floor(i / time)}][${i % time}]`
  for (let b = 0; b < batch; b++) {
    let lastTurn = -1
    for (let i = b * time; i < (b + 1) * time; i++) {
      const m = actionMask[i]!
      const r = tokenRewards[i]!
      if (m !== 0 && m !== 1) return E.left(`actionMask${at(i)}: expected 0 or 1, got ${m}`)
      if (!Number.isFinite(r)) return E.left(`tokenRewards${at(i)}: expected a finite number, got ${r}`)
      if (m === 0) {
        if (r !== 0) return E.left(`tokenRewards${at(i)}: reward ${r} on a token outside actionMask (rewards must sit on action tokens)`)
        continue
      }
      if (values !== undefined && !Number.isFinite(values[i]!)) return E.left(`values${at(i)}: expected a finite number, got ${values[i]}`)
      if (turnIndex !== undefined) {
        const k = turnIndex[i]!
        if (k < 0) return E.left(`turnIndex${at(i)}: action token with turn ${k} (must be >= 0)`)
        if (k < lastTurn) return E.left(`turnIndex${at(i)}: turn ${k} after turn ${lastTurn} (turns must not decrease along a row)`)
        lastTurn = k
      }
    }
    if (bootstrapValues !== undefined && !Number.isFinite(bootstrapValues[b]!))
      return E.left(`bootstrapValues[${b}]: expected a finite number, got ${bootstrapValues[b]}`)
  }
  return E.right(input)
}

/**
 * {@link validate} for estimators: a broken input is a programmer error and throws, naming
 * the estimator.
 *
 * @category destructors
 * @since 0.1.0
 */
export const assertValid = (estimator: string, input: TokenBatch): void => {
  const result = validate(input)
  if (E.isLeft(result)) throw new Error(`${estimator}: invalid input: ${result.left}`)
}

/**
 * Outcome of each row, `R_b = sum_t tokenRewards[b, t]` (float64 sum), shape `[batch]`.
 *
 * @category destructors
 * @since 0.1.0
 */
export const rowOutcomes = (input: TokenBatch): Float64Array => {
  const { batch, time, tokenRewards } = input
  const out = new Float64Array(batch)
  for (let b = 0; b < batch; b++) {
    let sum = 0
    for (let i = b * time; i < (b + 1) * time; i++) sum += tokenRewards[i]!
    out[b] = sum
  }
  return out
}

/**
 * Writes one number per row on every action token of that row (0 elsewhere), shape
 * `[batch] -> [batch, time]`: how outcome-level estimators hand their advantage to the tokens.
 *
 * @category constructors
 * @since 0.1.0
 */
export const broadcastRows = (perRow: ArrayLike<number>, actionMask: Float32Array, time: number): Float32Array => {
  const out = new Float32Array(actionMask.length)
  for (let b = 0; b < perRow.length; b++) {
    const v = perRow[b]!
    for (let i = b * time; i < (b + 1) * time; i++) if (actionMask[i] === 1) out[i] = v
  }
  return out
}
