/**
 * Backend set-up for tests and benchmarks: `cpu` by default (small, exact, everywhere);
 * `MTRL_TEST_BACKEND` picks another.
 *
 * @since 0.1.0
 */
import { Backend } from '@mtrl/backend'
import * as E from 'fp-ts/lib/Either.js'

/**
 * Activates `name` (or `MTRL_TEST_BACKEND`, or `cpu`) and returns what was selected.
 * Throws when it is not available: a test asked for it explicitly.
 *
 * @category setup
 * @since 0.1.0
 */
export const use = async (name?: Backend.Name): Promise<Backend.Selected> => {
  const wanted = name ?? (process.env['MTRL_TEST_BACKEND'] as Backend.Name | undefined) ?? 'cpu'
  const result = await Backend.select(wanted)()
  if (E.isLeft(result)) throw new Error(Backend.message(result.left))
  return result.right
}
