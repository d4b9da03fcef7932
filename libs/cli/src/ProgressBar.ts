/**
 * Progress for people: a bar with ETA on a terminal (cli-progress), plain lines otherwise
 * (logs, CI), at most one every 10% or 30 seconds.
 *
 * @since 0.1.0
 */
import cliProgress from 'cli-progress'

/** One task's progress: `update(done, status)`, then `stop`. @category models @since 0.1.0 */
export interface Bar {
  readonly update: (done: number, status: string) => void
  readonly stop: () => void
}

/** A bar for `total` steps of the task `label`. @category models @since 0.1.0 */
export type MakeBar = (label: string, total: number) => Bar

/**
 * Bars on `stream`: drawn in place on a terminal, as plain lines elsewhere.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make =
  (stream: NodeJS.WriteStream = process.stdout): MakeBar =>
  (label, total) => {
    if (stream.isTTY === true) {
      const bar = new cliProgress.SingleBar(
        { format: `${label} [{bar}] {value}/{total} | ETA {eta_formatted} | {status}`, stream, hideCursor: true, clearOnComplete: false },
        cliProgress.Presets.shades_classic
      )
      bar.start(total, 0, { status: '' })
      return { update: (done, status) => bar.update(done, { status }), stop: () => bar.stop() }
    }
    const started = Date.now()
    let lastAt = started
    let lastDecile = -1
    return {
      update: (done, status) => {
        const decile = Math.floor((10 * done) / Math.max(1, total))
        const now = Date.now()
        if (decile > lastDecile || now - lastAt > 30_000 || done === total) {
          lastDecile = decile
          lastAt = now
          const elapsed = (now - started) / 1000
          const eta = done > 0 ? (elapsed * (total - done)) / done : Number.NaN
          stream.write(`${label} ${done}/${total} (${elapsed.toFixed(0)} s, ETA ${Number.isFinite(eta) ? eta.toFixed(0) : '?'} s) ${status}\n`)
        }
      },
      stop: () => undefined
    }
  }
