/**
 * A `process` global for the libraries that read `process.env` or `process.pid` (a browser has
 * none). `versions` has no `node`, so TensorFlow.js and others still see a browser.
 */
const g = globalThis as { process?: unknown }
if (g.process === undefined) {
  g.process = {
    env: {},
    pid: 1,
    platform: 'browser',
    versions: {},
    argv: [],
    cwd: () => '/',
    nextTick: (f: (...args: unknown[]) => void, ...args: unknown[]) => queueMicrotask(() => f(...args)),
    on: () => undefined,
    off: () => undefined,
    emitWarning: () => undefined
  }
}
export default g.process

/** `setImmediate` (the SFT loop yields with it between steps): a message-channel turn, not a 4 ms timer. */
const h = globalThis as { setImmediate?: unknown }
if (h.setImmediate === undefined) {
  const channel = new MessageChannel()
  const queue: Array<() => void> = []
  channel.port1.onmessage = () => queue.shift()?.()
  h.setImmediate = (f: (...args: ReadonlyArray<unknown>) => void, ...args: ReadonlyArray<unknown>) => {
    queue.push(() => f(...args))
    channel.port2.postMessage(undefined)
  }
}
