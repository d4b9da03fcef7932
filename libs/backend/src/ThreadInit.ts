/**
 * A module for worker threads to import first: its default export activates a backend in the
 * thread, so data-parallel replicas (`@mtrl/replicas`) compute like the thread that started
 * them. `init(name)` is the `{ url, data }` a pool takes (`Pool.Init`): this module, from
 * sources or from dist/, with the backend's name.
 *
 * Libraries never choose a backend; the app (and a bench) pass this to the pools they start.
 *
 * @since 0.2.0
 */
import * as Backend from './Backend.js'

/**
 * Activates backend `name` in this thread (throws its message when it cannot).
 *
 * @category combinators
 * @since 0.2.0
 */
const activate = async (name: Backend.Name): Promise<void> => {
  const result = await Backend.select(name)()
  if (result._tag === 'Left') throw new Error(Backend.message(result.left))
}
export default activate

/**
 * The thread init that activates `name`: this module's URL and the name.
 *
 * @example
 * import { ThreadInit } from '@mtrl/backend'
 * ThreadInit.init('wasm') // { url: 'file:///.../thread-init.js', data: 'wasm' }
 * @category constructors
 * @since 0.2.0
 */
export const init = (name: Backend.Name): { readonly url: string; readonly data: Backend.Name } => {
  const here = import.meta.url
  return { url: here.endsWith('.ts') ? here : new URL('./thread-init.js', here).href, data: name }
}
