/**
 * A policy's weights as the decoder reads them, kept current: rebuilt when any policy variable
 * has been assigned since they were built (an optimizer step replaces a variable's dataId), so
 * a decoder always decodes with the current weights.
 */
import { parameterCount, type ModelConfig } from '../ModelConfig.js'
import { weightOf, type Policy } from '../Policy.js'
import { decodeShared } from './decodeShared.js'
import { prepare, type Layout, type Prepared } from './decodeWeights.js'
import { transposesFlagged } from './ops.js'

/**
 * Models from this many parameters decode from the trunk's own weights where the backend's
 * products take transposes as flags: below it the folded copy costs little memory (16M
 * parameters: 64 MiB) and saves ops per step, and the numerics of the small models (the
 * default recipes') stay as they were.
 */
export const sharedFrom = 2 ** 24

/** The layout a decoder of `config` uses on the active backend unless told otherwise. */
export const defaultLayout = (config: ModelConfig): Layout => (transposesFlagged() && parameterCount(config) >= sharedFrom ? 'shared' : 'copy')

export interface CurrentWeights {
  /** The version of the weights: it grows whenever a variable has been assigned since the last call. */
  readonly version: () => number
  /** The weights in decode layout at the current version (built at the first call after a change). */
  readonly prepared: () => Prepared
  readonly dispose: () => void
}

/** The current weights of `policy` (which it reads, never owns) in `layout`; `dispose` frees what the layout made. */
export const makeCurrentWeights = (policy: Policy, layout: Layout = defaultLayout(policy.config)): CurrentWeights => {
  let prepared: { readonly prep: Prepared; readonly ids: ReadonlyArray<object> } | undefined
  let seen: ReadonlyArray<object> = []
  let version = 0
  const weightsVersion = (): number => {
    const ids = Object.values(policy.variables).map((v) => v.dataId)
    if (!(seen.length === ids.length && seen.every((id, i) => id === ids[i]))) {
      if (seen.length > 0) version += 1
      seen = ids
    }
    return version
  }
  const build = layout === 'shared' ? decodeShared : prepare
  return {
    version: weightsVersion,
    prepared: () => {
      weightsVersion()
      if (prepared !== undefined && prepared.ids === seen) return prepared.prep
      prepared?.prep.dispose()
      prepared = { prep: build(policy.config, weightOf(policy)), ids: seen }
      return prepared.prep
    },
    dispose: () => {
      prepared?.prep.dispose()
      prepared = undefined
    }
  }
}
