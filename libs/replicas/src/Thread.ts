/**
 * Starting a worker thread from a module URL, from sources or from dist: a `.js` module starts
 * as it is; when the module or any module the thread will import is TypeScript (a workspace run
 * from sources, a test's fixture), the thread first registers tsx and the `@mtrl/source` export
 * condition, so workspace packages resolve to their sources there too. What the replicas'
 * threads (`Pool`) and the rollout threads of `@mtrl/rollout-queue` start from.
 *
 * @since 0.2.0
 */
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Worker, type Transferable } from 'node:worker_threads'

/**
 * - `workerData`, `transferList`: as `new Worker(...)` takes them;
 * - `imports`: the URLs of other modules the thread will import (an init, a task), so tsx is
 *   registered when one of them is TypeScript.
 *
 * @category models
 * @since 0.2.0
 */
export interface Options {
  readonly workerData: unknown
  readonly transferList?: ReadonlyArray<Transferable>
  readonly imports?: ReadonlyArray<string | undefined>
}

/** Source-mode bootstrap: the worker registers tsx and the `@mtrl/source` condition, then loads the TypeScript worker. */
const sourceBootstrap = (target: string, tsxApi: string): string => {
  const hook =
    'data:text/javascript,' +
    encodeURIComponent(
      "export async function resolve(s, c, n) { return n(s, { ...c, conditions: c.conditions.includes('@mtrl/source') ? c.conditions : ['@mtrl/source', ...c.conditions] }) }"
    )
  return `const { register } = require('node:module');
(async () => {
  register(${JSON.stringify(hook)});
  const tsx = await import(${JSON.stringify(tsxApi)});
  tsx.register();
  await import(${JSON.stringify(target)});
})().catch((e) => { process.nextTick(() => { throw e }) });`
}

/**
 * Starts a thread running the module at `url` (a `file:` URL, `.ts` or `.js`).
 *
 * @example
 * import { Thread } from '@mtrl/replicas'
 * const here = import.meta.url
 * const worker = Thread.start(new URL(here.endsWith('.ts') ? './worker.ts' : './worker.js', here).href, { workerData: { n: 1 } })
 * void worker.terminate()
 *
 * @category constructors
 * @since 0.2.0
 */
export const start = (url: string, options: Options): Worker => {
  const { workerData, transferList = [] } = options
  const transfer = [...transferList]
  // a worker inherits the process's flags; --input-type (from `node --input-type=module -e`) breaks file workers
  const execArgv = process.execArgv.filter((flag) => !flag.startsWith('--input-type'))
  if ([url, ...(options.imports ?? [])].some((u) => u?.endsWith('.ts') === true)) {
    // tsx's ES-module API, found from this file (require.resolve would give its CommonJS entry)
    const tsxRoot = dirname(createRequire(import.meta.url).resolve('tsx/package.json'))
    const tsxApi = pathToFileURL(join(tsxRoot, 'dist', 'esm', 'api', 'index.mjs')).href
    return new Worker(sourceBootstrap(url, tsxApi), { eval: true, workerData, transferList: transfer, execArgv })
  }
  return new Worker(new URL(url), { workerData, transferList: transfer, execArgv })
}
