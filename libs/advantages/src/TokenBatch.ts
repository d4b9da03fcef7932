/**
 * The input every estimator takes: token-level arrays of shape `[batch, time]`, stored
 * row-major in flat typed arrays (`x[b * time + t]`), plus the per-row bookkeeping that some
 * estimators need (turn of each token, group of each row, bootstrap value of truncated rows).
 *
 * Invariant shared by every estimator: **rewards live on action tokens**. A non-zero reward on
 * a token with `responseMask = 0` is rejected, because the GAE family skips those tokens (as
 * verl does) and the reward would silently vanish. Put a turn's reward on its last action token
 * ({@link fromTrajectories} does so through `Trajectory.placeOnLastActionToken`).
 *
 * @since 0.1.0
 */
import { Trajectory } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'

/**
 * Estimator input. Shapes in brackets; all arrays are row-major.
 *
 * - `tokenRewards [batch, time]`: reward of each token, 0 off the mask;
 * - `responseMask [batch, time]`: 1 on action (trainable) tokens, 0 on prompt, observation and
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
  readonly responseMask: Float32Array
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
  const { batch, time, tokenRewards, responseMask, values, turnIndex, bootstrapValues } = input
  for (let b = 0; b < batch; b++) {
    if (bootstrapValues !== undefined && bootstrapValues[b]! - bootstrapValues[b]! !== 0) return false
    let lastTurn = 0
    for (let i = b * time, end = (b + 1) * time; i < end; i++) {
      const m = responseMask[i]!
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
 * per-token faults, the row and time step (`responseMask[1][3]: expected 0 or 1, got 0.5`).
 *
 * @category destructors
 * @since 0.1.0
 */
export const validate = (input: TokenBatch): E.Either<string, TokenBatch> => {
  const { batch, time, tokenRewards, responseMask, values, turnIndex, groupIds, bootstrapValues } = input
  if (!Number.isInteger(batch) || batch < 0) return E.left(`batch: expected a non-negative integer, got ${batch}`)
  if (!Number.isInteger(time) || time < 0) return E.left(`time: expected a non-negative integer, got ${time}`)
  const size = batch * time
  const shape = `batch ${batch} x time ${time}`
  const lengthError =
    checkLength('tokenRewards', tokenRewards.length, size, shape) ??
    checkLength('responseMask', responseMask.length, size, shape) ??
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
      const m = responseMask[i]!
      const r = tokenRewards[i]!
      if (m !== 0 && m !== 1) return E.left(`responseMask${at(i)}: expected 0 or 1, got ${m}`)
      if (!Number.isFinite(r)) return E.left(`tokenRewards${at(i)}: expected a finite number, got ${r}`)
      if (m === 0) {
        if (r !== 0) return E.left(`tokenRewards${at(i)}: reward ${r} on a token outside responseMask (rewards must sit on action tokens)`)
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
export const broadcastRows = (perRow: ArrayLike<number>, responseMask: Float32Array, time: number): Float32Array => {
  const out = new Float32Array(responseMask.length)
  for (let b = 0; b < perRow.length; b++) {
    const v = perRow[b]!
    for (let i = b * time; i < (b + 1) * time; i++) if (responseMask[i] === 1) out[i] = v
  }
  return out
}

/**
 * What {@link fromTrajectories} takes. Arrays are indexed like `trajectories`.
 *
 * - `turnRewards`: one reward per turn for each trajectory (e.g. `trajectories.map(rewardFn)`);
 *   defaults to each trajectory's own `turnRewards`;
 * - `values`: the critic's value at every token of each trajectory (`Trajectory.length` entries);
 * - `bootstrapValues`: V(s_T) for each trajectory; must be 0 unless the trajectory is truncated.
 *
 * @category models
 * @since 0.1.0
 */
export interface FromTrajectoriesInput {
  readonly trajectories: ReadonlyArray<Trajectory.Trajectory>
  readonly turnRewards?: ReadonlyArray<ReadonlyArray<number>>
  readonly values?: ReadonlyArray<Float32Array>
  readonly bootstrapValues?: ReadonlyArray<number>
}

/**
 * Builds a {@link TokenBatch} from trajectories: one row per trajectory, right-padded to the
 * longest one (padding: mask 0, reward 0, value 0, turn -1). Each turn's reward is placed on
 * the last action token of that turn; `turnIndex` is `Trajectory.turnIndex` (prompt -1);
 * `groupIds` are the trajectories' `groupId`s. Throws on inconsistent lengths (programmer error).
 *
 * @example
 * import { TokenBatch, Gae } from '@mtrl/advantages'
 * declare const trajectories: ReadonlyArray<import('@mtrl/core').Trajectory.Trajectory>
 * const input = TokenBatch.fromTrajectories({ trajectories })
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromTrajectories = (input: FromTrajectoriesInput): TokenBatch => {
  const { trajectories, turnRewards, values, bootstrapValues } = input
  const n = trajectories.length
  const check = (field: string, given: { readonly length: number } | undefined): void => {
    if (given !== undefined && given.length !== n) throw new Error(`TokenBatch.fromTrajectories: ${given.length} ${field} for ${n} trajectories`)
  }
  check('turnRewards', turnRewards)
  check('values', values)
  check('bootstrapValues', bootstrapValues)
  const lengths = trajectories.map(Trajectory.length)
  const time = lengths.reduce((a, b) => Math.max(a, b), 0)
  const tokenRewards = new Float32Array(n * time)
  const responseMask = new Float32Array(n * time)
  const turnIndex = new Int32Array(n * time).fill(-1)
  const valueRows = values === undefined ? undefined : new Float32Array(n * time)
  const bootstrap = new Float32Array(n)
  trajectories.forEach((trajectory, b) => {
    const perTurn = turnRewards?.[b] ?? trajectory.turnRewards
    if (perTurn.length !== trajectory.turns.length)
      throw new Error(`TokenBatch.fromTrajectories: trajectory ${b} has ${trajectory.turns.length} turns but ${perTurn.length} turn rewards`)
    tokenRewards.set(Trajectory.placeOnLastActionToken(perTurn)(trajectory), b * time)
    responseMask.set(Trajectory.actionMask(trajectory), b * time)
    turnIndex.set(Trajectory.turnIndex(trajectory), b * time)
    const v = values?.[b]
    if (valueRows !== undefined && v !== undefined) {
      if (v.length !== lengths[b]) throw new Error(`TokenBatch.fromTrajectories: values ${b} has ${v.length} entries for ${lengths[b]} tokens`)
      valueRows.set(v, b * time)
    }
    const boot = bootstrapValues?.[b] ?? 0
    if (boot !== 0 && !trajectory.truncated)
      throw new Error(`TokenBatch.fromTrajectories: bootstrap value ${boot} for trajectory ${b}, which ended (not truncated); a finished episode bootstraps from 0`)
    bootstrap[b] = boot
  })
  return {
    batch: n,
    time,
    tokenRewards,
    responseMask,
    turnIndex,
    groupIds: trajectories.map((trajectory) => trajectory.groupId),
    bootstrapValues: bootstrap,
    ...(valueRows === undefined ? {} : { values: valueRows })
  }
}
