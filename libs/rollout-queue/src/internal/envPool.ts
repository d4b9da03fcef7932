/**
 * Environments per spec, kept between jobs (one per episode slot in use): what a queue worker
 * (`../Worker.ts`) and a rollout thread (`threadWorker.ts`) take their slots' environments from.
 */
import type { Env } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import type { EnvResolver } from '../Worker.js'

/** Environments per spec, kept between jobs. */
export interface EnvPool {
  /** `n` environments for `spec`, idle ones first; the resolver's message when it cannot build them. */
  readonly take: (spec: unknown, n: number) => E.Either<string, Env.Env[]>
  readonly give: (spec: unknown, envs: ReadonlyArray<Env.Env>) => void
  readonly close: () => Promise<void>
}

/** A pool of the environments `resolve` builds. */
export const envPool = (resolve: EnvResolver): EnvPool => {
  const idle = new Map<string, Env.Env[]>()
  return {
    take: (spec: unknown, n: number): E.Either<string, Env.Env[]> => {
      const key = JSON.stringify(spec)
      const free = idle.get(key) ?? []
      idle.set(key, free)
      const factory = free.length >= n ? E.right(undefined) : resolve(spec)
      if (E.isLeft(factory)) return factory
      return E.right(Array.from({ length: n }, () => free.pop() ?? factory.right!()))
    },
    give: (spec: unknown, envs: ReadonlyArray<Env.Env>): void => {
      idle.get(JSON.stringify(spec))?.push(...envs)
    },
    close: async (): Promise<void> => {
      await Promise.all([...idle.values()].flat().map((env) => env.close()()))
      idle.clear()
    }
  }
}

/** See `Worker.cachedSources`. */
export const cachedSources = (decode: (spec: unknown) => E.Either<string, Env.EnvSource>): { readonly envs: EnvResolver; readonly dispose: () => void } => {
  const sources = new Map<string, Env.EnvSource>()
  return {
    envs: (spec) => {
      const key = JSON.stringify(spec)
      const known = sources.get(key)
      if (known !== undefined) return E.right((): Env.Env => known.make())
      return E.map((source: Env.EnvSource) => {
        sources.set(key, source)
        return (): Env.Env => source.make()
      })(decode(spec))
    },
    dispose: () => sources.forEach((s) => s.dispose())
  }
}
