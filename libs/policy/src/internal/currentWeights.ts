/**
 * A policy's weights in decode layout, kept current: rebuilt when any policy variable has been
 * assigned since they were built (an optimizer step replaces a variable's dataId), so a decoder
 * always decodes with the current weights.
 */
import { weightOf, type Policy } from '../Policy.js'
import { prepare, type Prepared } from './decodeWeights.js'

export interface CurrentWeights {
  /** The version of the weights: it grows whenever a variable has been assigned since the last call. */
  readonly version: () => number
  /** The weights in decode layout at the current version (built at the first call after a change). */
  readonly prepared: () => Prepared
  readonly dispose: () => void
}

/** The current weights of `policy` (which it reads, never owns); `dispose` frees the decode layout. */
export const makeCurrentWeights = (policy: Policy): CurrentWeights => {
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
  return {
    version: weightsVersion,
    prepared: () => {
      weightsVersion()
      if (prepared !== undefined && prepared.ids === seen) return prepared.prep
      prepared?.prep.dispose()
      prepared = { prep: prepare(policy.config, weightOf(policy)), ids: seen }
      return prepared.prep
    },
    dispose: () => {
      prepared?.prep.dispose()
      prepared = undefined
    }
  }
}
