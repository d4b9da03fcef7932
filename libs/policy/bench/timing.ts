/**
 * Timing shared by the benches.
 */

/** Wall-clock milliseconds. */
export const now = (): number => performance.now()

/**
 * Best (shortest) wall time in seconds of `runs` calls after one warm-up. The best of several
 * runs is the figure least disturbed by other processes on a shared machine.
 */
export const bestOf = (runs: number, f: () => void): number => {
  f()
  let best = Infinity
  for (let i = 0; i < runs; i++) {
    const t0 = now()
    f()
    best = Math.min(best, now() - t0)
  }
  return best / 1000
}
