/**
 * At most `limit` tasks at a time; the others wait in arrival order.
 */
export interface Semaphore {
  readonly run: <A>(task: () => Promise<A>) => Promise<A>
}

export const make = (limit: number): Semaphore => {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`concurrency must be a positive integer, got ${limit}`)
  let active = 0
  const waiting: Array<() => void> = []
  const release = (): void => {
    active -= 1
    waiting.shift()?.()
  }
  return {
    run: async (task) => {
      if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve))
      active += 1
      try {
        return await task()
      } finally {
        release()
      }
    }
  }
}
