/**
 * What a recipe's run ends with when it does not finish: `Failed` (a library reported an error;
 * its message, naming the stage where it helps) or `Stopped` (on request, after a checkpoint; the
 * message says how to continue). The app maps them to exit codes.
 *
 * @since 0.1.0
 */

/** @category model */
export type RunError = Failed | Stopped

/** @category model */
export interface Failed {
  readonly _tag: 'Failed'
  readonly message: string
}

/** @category model */
export interface Stopped {
  readonly _tag: 'Stopped'
  readonly message: string
}

/** @category constructors */
export const failed = (message: string): Failed => ({ _tag: 'Failed', message })

/** @category constructors */
export const stopped = (message: string): Stopped => ({ _tag: 'Stopped', message })
