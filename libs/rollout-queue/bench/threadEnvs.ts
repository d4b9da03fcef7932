/**
 * The rollout threads' environment module of the benchmarks: `{ textworld: "w2-o3-q4" }` -> the
 * TextWorld source of those settings.
 */
import type { Env } from '@mtrl/core'
import { Settings, TextWorld } from '@mtrl/env-textworld'
import * as E from 'fp-ts/lib/Either.js'

export default (raw: unknown): E.Either<string, Env.EnvSource> => {
  const name = (raw as { textworld?: unknown } | null)?.textworld
  if (typeof name !== 'string') return E.left(`expected { textworld: "w2-o3-q4" }, got ${JSON.stringify(raw)}`)
  return E.map(TextWorld.source)(Settings.parse(name))
}
