/**
 * A short mutual exclusion between processes of one host: a lock file created with `O_EXCL`
 * holding the owner's pid, removed when done. Held for a directory listing and one file
 * creation (about a millisecond), so waiting spins synchronously with 1 ms sleeps. A lock left by
 * a process that died holding it is taken back: renamed away (only one taker's rename succeeds),
 * and put back if it turns out to be a live owner's.
 */
import * as fs from 'node:fs'

const nap = new Int32Array(new SharedArrayBuffer(4))
const sleepMs = (ms: number): void => {
  Atomics.wait(nap, 0, 0, ms)
}

const ownerAlive = (text: string): boolean => {
  const pid = Number(text.trim())
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

const readOr = (file: string): string | undefined => {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
}

/** Takes back the lock of an owner that no longer exists; true if it did (or the lock is gone). */
const takeBackStale = (file: string): boolean => {
  const text = readOr(file)
  // Gone already. An empty one is being written by its owner (created, pid not yet in) unless
  // it is a second old: then its owner died in between.
  if (text === undefined) return true
  if (text === '' ? Date.now() - (fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0) < 1000 : ownerAlive(text)) return false
  const aside = `${file}.stale-${process.pid}-${Math.random().toString(36).slice(2)}`
  try {
    fs.renameSync(file, aside)
  } catch {
    return true
  }
  const moved = readOr(aside)
  if (moved !== undefined && moved !== text && ownerAlive(moved)) {
    // Another taker replaced it first: that lock is live, put it back.
    try {
      fs.linkSync(aside, file)
    } catch {
      // a third owner holds the path now; the moved one's owner will find its file gone, harmlessly
    }
  }
  fs.rmSync(aside, { force: true })
  return true
}

/**
 * Runs `f` holding the lock `file` (its directory must exist); throws if the lock stays held by
 * a live process for `waitMs`.
 */
export const withLock = <A>(file: string, f: () => A, waitMs = 10_000): A => {
  const deadline = Date.now() + waitMs
  for (;;) {
    let fd: number | undefined
    try {
      fd = fs.openSync(file, 'wx', 0o644)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
    }
    if (fd !== undefined) {
      try {
        fs.writeSync(fd, String(process.pid))
        fs.closeSync(fd)
        return f()
      } finally {
        fs.rmSync(file, { force: true })
      }
    }
    if (!takeBackStale(file)) {
      if (Date.now() > deadline) throw new Error(`the lock ${file} is held by process ${readOr(file)?.trim() ?? '?'} for more than ${waitMs} ms`)
      sleepMs(1)
    }
  }
}
