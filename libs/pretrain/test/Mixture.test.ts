import { Decode, Rng, type Env } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Mixture.js'

const decode = (json: unknown): E.Either<string, _.Mixture> => E.mapLeft(Decode.formatError)(Decode.decode('mixture', _.Mixture)(json))

describe('Mixture codec', () => {
  it('decodes the default mixture', () => {
    expect(decode(_.defaultMixture)).toEqual(E.right(_.defaultMixture))
  })
  it('names the bad field', () => {
    const bad = (json: unknown): string => {
      const d = decode(json)
      if (E.isRight(d)) throw new Error('decoded')
      return d.left
    }
    expect(bad([])).toMatch(/at least one entry/)
    expect(bad([{ kind: 'textworld', rooms: [0, 3], objects: [1, 2], questLength: [1, 2] }])).toMatch(/rooms.*rooms from 1 to 12/s)
    expect(bad([{ kind: 'textworld', rooms: [1, 3], objects: [1, 2], questLength: [5, 2] }])).toMatch(/questLength.*from 5 \(the low end\) to 12/s)
    expect(bad([{ kind: 'cooking', weight: 0 }])).toMatch(/weight/)
    expect(bad([{ kind: 'swe' }])).toMatch(/kind/)
  })
})

describe('Mixture.label', () => {
  it('names each entry', () => {
    expect(_.label(_.defaultMixture)).toBe('textworld w1-8 o1-12 q1-8 + cooking + alfworld/train')
    expect(_.label([{ kind: 'textworld', rooms: [2, 2], objects: [3, 3], questLength: [4, 4] }])).toBe('textworld w2 o3 q4')
  })
})

describe('Mixture.draw', () => {
  it('draws entries in proportion to their weights', () => {
    const cache = new Map<string, Env.EnvSource>()
    const draw = _.draw(_.defaultMixture, cache)
    const rng = Rng.make(3)
    const names = Array.from({ length: 5000 }, () => draw(rng).name)
    const share = (p: (n: string) => boolean): number => names.filter(p).length / names.length
    expect(share((n) => n.startsWith('alfworld/train'))).toBeCloseTo(0.2, 1)
    expect(share((n) => n.includes('tw-simple-dense-detailed'))).toBeCloseTo(0.2, 1)
    expect(share((n) => /w\d+-o\d+-q\d+/.test(n))).toBeCloseTo(0.6, 1)
    for (const s of cache.values()) s.dispose()
  })
  it('draws every setting of a TextWorld entry, and only those, and makes each source once', () => {
    const cache = new Map<string, Env.EnvSource>()
    const draw = _.draw([{ kind: 'textworld', rooms: [2, 3], objects: [1, 2], questLength: [4, 4] }], cache)
    const rng = Rng.make(4)
    const drawn = Array.from({ length: 400 }, () => draw(rng))
    expect([...new Set(drawn.map((s) => s.name.replace(/^textworld\//, '')))].sort()).toEqual(['w2-o1-q4', 'w2-o2-q4', 'w3-o1-q4', 'w3-o2-q4'])
    expect(cache.size).toBe(4)
    expect(drawn.filter((s) => cache.get(s.name) !== s)).toEqual([])
  })
})
