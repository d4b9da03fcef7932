/**
 * The init module of SFT's data-parallel replicas (`Replicas.Init`): each worker thread imports
 * it first and activates the backend its run uses, so every replica computes like the main
 * thread (libraries never choose a backend; the app does).
 */
import { Backend } from '@mtrl/backend'
import type { Replicas } from '@mtrl/trainer-sft'
import * as E from 'fp-ts/lib/Either.js'

/** Activates backend `name` in this thread. */
const activate = async (name: Backend.Name): Promise<void> => {
  const result = await Backend.select(name)()
  if (E.isLeft(result)) throw new Error(Backend.message(result.left))
}
export default activate

/** The init that activates `name` in each replica (this module, from sources or from dist/). */
export const init = (name: Backend.Name): Replicas.Init => {
  const here = import.meta.url
  return { url: here.endsWith('.ts') ? here : new URL('./replica-backend.js', here).href, data: name }
}
