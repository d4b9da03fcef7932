import type { Env } from '@mtrl/core'
import { Toy } from '@mtrl/testing'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Worker.js'

describe('Worker.cachedSources', () => {
  it('builds one source per distinct spec, reuses it, passes decoding errors on, and disposes every source once', () => {
    const built: string[] = []
    const disposed: string[] = []
    const source = (name: string): Env.EnvSource => ({ name, maxTurns: 1, make: () => Toy.bandit(), dispose: () => void disposed.push(name) })
    const cached = _.cachedSources((spec) => {
      if (typeof spec !== 'object' || spec === null || !('name' in spec)) return E.left('no name')
      const name = String(spec.name)
      built.push(name)
      return E.right(source(name))
    })
    expect(E.isRight(cached.envs({ name: 'a' }))).toBe(true)
    expect(E.isRight(cached.envs({ name: 'a' }))).toBe(true)
    expect(E.isRight(cached.envs({ name: 'b' }))).toBe(true)
    expect(cached.envs(42)).toEqual(E.left('no name'))
    const factory = cached.envs({ name: 'a' })
    expect(E.isRight(factory) && factory.right().spec.name).toBe(Toy.bandit().spec.name)
    expect(built).toEqual(['a', 'b'])
    cached.dispose()
    expect(disposed).toEqual(['a', 'b'])
  })
})
