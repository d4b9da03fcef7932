/**
 * Ctrl-C as a stop request for long work: the first SIGINT asks the work to stop at its next
 * safe point (after a checkpoint), the second exits at once with 130.
 *
 * @since 0.1.0
 */

/** Whether a stop was asked for; `release` stops listening. @category models @since 0.1.0 */
export interface StopRequest {
  readonly requested: () => boolean
  readonly release: () => void
}

/**
 * Listens for Ctrl-C until released, telling people what the first one does.
 *
 * @category constructors
 * @since 0.1.0
 */
export const onInterrupt = (note: (text: string) => void = (text) => void process.stderr.write(text)): StopRequest => {
  let requested = false
  const onSignal = (): void => {
    if (requested) process.exit(130)
    requested = true
    note('\nstopping after the current iteration (Ctrl-C again to stop now)\n')
  }
  process.on('SIGINT', onSignal)
  return { requested: () => requested, release: () => process.off('SIGINT', onSignal) }
}
