/**
 * The environment module of an RL stage's rollout threads (`@mtrl/rollout-queue`'s `Threads`):
 * each thread imports it and builds the stage's environment source from the stage's env entry,
 * as `mtrl worker` does for a job's. Its own tsup entry (`thread-envs.js`), so a thread imports
 * it from dist/.
 */
import type { Env } from '@mtrl/core'
import type * as E from 'fp-ts/lib/Either.js'
import { decodeSource } from '../EnvConfig.js'

/** The source of a recipe's env entry, or why it does not decode. */
const decode: (spec: unknown) => E.Either<string, Env.EnvSource> = decodeSource("the stage's environment")

export default decode

/** This module's URL: from sources, or its dist/ entry. */
export const url = (): string => {
  const here = import.meta.url
  return here.endsWith('.ts') ? here : new URL('./thread-envs.js', here).href
}
