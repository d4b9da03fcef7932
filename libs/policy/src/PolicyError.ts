/**
 * Errors of loading and saving models: files, safetensors, configurations, unsupported
 * architectures. Returned in `TaskEither`s; programmer errors (wrong shapes) throw instead.
 *
 * @since 0.1.0
 */

/**
 * @category models
 * @since 0.1.0
 */
export type PolicyError =
  | { readonly _tag: 'FileError'; readonly path: string; readonly reason: string }
  | { readonly _tag: 'InvalidSafetensors'; readonly path: string; readonly reason: string }
  | { readonly _tag: 'InvalidConfig'; readonly path: string; readonly reason: string }
  | { readonly _tag: 'UnsupportedModel'; readonly path: string; readonly reason: string }

/** @category constructors @since 0.1.0 */
export const fileError = (path: string, reason: string): PolicyError => ({ _tag: 'FileError', path, reason })
/** @category constructors @since 0.1.0 */
export const invalidSafetensors = (path: string, reason: string): PolicyError => ({ _tag: 'InvalidSafetensors', path, reason })
/** @category constructors @since 0.1.0 */
export const invalidConfig = (path: string, reason: string): PolicyError => ({ _tag: 'InvalidConfig', path, reason })
/** @category constructors @since 0.1.0 */
export const unsupportedModel = (path: string, reason: string): PolicyError => ({ _tag: 'UnsupportedModel', path, reason })

/**
 * A one-line, human-readable description.
 *
 * @category destructors
 * @since 0.1.0
 */
export const message = (error: PolicyError): string => {
  switch (error._tag) {
    case 'FileError':
      return `${error.path}: ${error.reason}`
    case 'InvalidSafetensors':
      return `${error.path}: not a valid safetensors file: ${error.reason}`
    case 'InvalidConfig':
      return `${error.path}: invalid configuration: ${error.reason}`
    case 'UnsupportedModel':
      return `${error.path}: unsupported model: ${error.reason}`
  }
}
