/**
 * Errors an environment can raise. Invalid *actions* are not errors (they are answered with
 * `info.valid = false`); these are failures of the environment itself.
 *
 * @since 0.1.0
 */

/**
 * @category models
 * @since 0.1.0
 */
export type EnvError =
  | { readonly _tag: 'ResetFailed'; readonly env: string; readonly seed: number; readonly reason: string }
  | { readonly _tag: 'StepFailed'; readonly env: string; readonly action: string; readonly reason: string }
  | { readonly _tag: 'NotStarted'; readonly env: string }
  | { readonly _tag: 'EpisodeOver'; readonly env: string }
  | { readonly _tag: 'Transport'; readonly env: string; readonly call: string; readonly reason: string }
  | { readonly _tag: 'Timeout'; readonly env: string; readonly call: string; readonly ms: number }
  | { readonly _tag: 'InvalidResponse'; readonly env: string; readonly call: string; readonly reason: string }

/** @category constructors @since 0.1.0 */
export const resetFailed = (env: string, seed: number, reason: string): EnvError => ({ _tag: 'ResetFailed', env, seed, reason })
/** @category constructors @since 0.1.0 */
export const stepFailed = (env: string, action: string, reason: string): EnvError => ({ _tag: 'StepFailed', env, action, reason })
/** @category constructors @since 0.1.0 */
export const notStarted = (env: string): EnvError => ({ _tag: 'NotStarted', env })
/** @category constructors @since 0.1.0 */
export const episodeOver = (env: string): EnvError => ({ _tag: 'EpisodeOver', env })
/** @category constructors @since 0.1.0 */
export const transport = (env: string, call: string, reason: string): EnvError => ({ _tag: 'Transport', env, call, reason })
/** @category constructors @since 0.1.0 */
export const timeout = (env: string, call: string, ms: number): EnvError => ({ _tag: 'Timeout', env, call, ms })
/** @category constructors @since 0.1.0 */
export const invalidResponse = (env: string, call: string, reason: string): EnvError => ({ _tag: 'InvalidResponse', env, call, reason })

/**
 * A one-line, human-readable description.
 *
 * @category destructors
 * @since 0.1.0
 */
export const message = (error: EnvError): string => {
  switch (error._tag) {
    case 'ResetFailed':
      return `${error.env}: reset(seed ${error.seed}) failed: ${error.reason}`
    case 'StepFailed':
      return `${error.env}: step(${JSON.stringify(error.action)}) failed: ${error.reason}`
    case 'NotStarted':
      return `${error.env}: step before reset`
    case 'EpisodeOver':
      return `${error.env}: step after the episode ended`
    case 'Transport':
      return `${error.env}: ${error.call} failed: ${error.reason}`
    case 'Timeout':
      return `${error.env}: ${error.call} timed out after ${error.ms} ms`
    case 'InvalidResponse':
      return `${error.env}: ${error.call} returned an invalid response: ${error.reason}`
  }
}
