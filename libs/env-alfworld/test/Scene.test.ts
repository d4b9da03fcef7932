import { Arbitraries } from '@mtrl/testing'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { objectKind, roomKinds, roomSpecs } from '../src/internal/catalog.js'
import { layout, layoutsPerRoom } from '../src/internal/layouts.js'
import * as _ from '../src/Scene.js'
import { heldOutLayouts, heldOutObjects, splits } from '../src/Split.js'
import { taskTypes } from '../src/Task.js'

const seeds = (n: number, from = 0): number[] => Array.from({ length: n }, (_, i) => from + i)

describe('Scene', () => {
  it('every object of every room kind has a receptacle that every layout of that kind contains', () => {
    for (const room of roomKinds) {
      for (let id = 0; id < layoutsPerRoom; id++) {
        const present = new Set(layout(room, id).receptacles)
        for (const o of [...roomSpecs[room].objects, ...(roomSpecs[room].lamp ? ['desklamp'] : [])])
          expect(
            objectKind(o).placements.some((r) => present.has(r)),
            `${o} in ${room} layout ${id}`
          ).toBe(true)
      }
    }
  })

  it('layouts of a room kind are pairwise different', () => {
    for (const room of roomKinds) {
      const signatures = Array.from({ length: layoutsPerRoom }, (_, id) => layout(room, id).signature)
      expect(new Set(signatures).size).toBe(layoutsPerRoom)
    }
  })

  it('is deterministic per seed, split and filter', () => {
    fc.assert(
      fc.property(Arbitraries.seed, fc.constantFrom(...splits), fc.subarray([...taskTypes], { minLength: 1 }), (seed, split, filter) => {
        expect(_.generate(split, filter)(seed)).toEqual(_.generate(split, filter)(seed))
      }),
      { numRuns: 200 }
    )
  })

  it('cycles the task type with the seed', () => {
    for (const seed of seeds(12)) expect(_.generate('train', taskTypes)(seed).task.type).toBe(taskTypes[seed % 6])
  })

  it('builds well-formed games: numbered names, plausible placements, enough task objects, goal not yet met', () => {
    fc.assert(
      fc.property(Arbitraries.seed, fc.constantFrom(...splits), fc.constantFrom(...taskTypes), (seed, split, type) => {
        const { scene, task } = _.generate(split, [type])(seed)
        const names = [...scene.receptacles.map((r) => r.name), ...scene.objects.map((o) => o.name)]
        expect(new Set(names).size).toBe(names.length)
        for (const r of scene.receptacles) expect(r.name).toMatch(new RegExp(`^${r.type} [1-9][0-9]*$`))
        scene.objects.forEach((o, i) => {
          expect(o.name).toMatch(new RegExp(`^${o.type} [1-9][0-9]*$`))
          expect(objectKind(o.type).placements).toContain(scene.receptacles[scene.objectAt[i]!]!.type)
        })
        const xs = scene.objects.flatMap((o, i) => (o.type === task.object ? [i] : []))
        expect(xs.length).toBeGreaterThanOrEqual(type === 'pick_two_obj_and_place' ? 2 : 1)
        for (const i of xs) expect(scene.receptacles[scene.objectAt[i]!]!.type).not.toBe(task.target)
        if (type === 'look_at_obj_in_light') expect(scene.objects.some((o) => o.type === 'desklamp')).toBe(true)
        else expect(scene.receptacles.some((r) => r.type === task.target)).toBe(true)
        scene.receptacles.forEach((r, i) => {
          if (!r.openable) expect(scene.opened[i]).toBe(true)
        })
      }),
      { numRuns: 300 }
    )
  })

  it('unseen games never occur in train: fingerprints, layouts and task objects are disjoint', () => {
    for (const type of taskTypes) {
      const train = seeds(400).map(_.generate('train', [type]))
      const unseen = seeds(150).map(_.generate('valid-unseen', [type]))
      const trainPrints = new Set(train.map(_.fingerprint))
      const trainLayouts = new Set(train.map((g) => g.scene.layoutSignature))
      const trainObjects = new Set(train.map((g) => g.task.object))
      for (const game of unseen) {
        expect(trainPrints.has(_.fingerprint(game))).toBe(false)
        expect(trainLayouts.has(game.scene.layoutSignature)).toBe(false)
        expect(trainObjects.has(game.task.object)).toBe(false)
        expect(heldOutLayouts).toContain(game.scene.layout)
        expect(heldOutObjects[type]).toContain(game.task.object)
      }
      for (const game of train) expect(heldOutLayouts).not.toContain(game.scene.layout)
    }
  })

  it('valid-seen draws from the training distribution but other games', () => {
    const train = seeds(300).map(_.generate('train', taskTypes))
    const seen = seeds(300).map(_.generate('valid-seen', taskTypes))
    const trainLayouts = new Set(train.map((g) => g.scene.layoutSignature))
    expect(seen.filter((g) => trainLayouts.has(g.scene.layoutSignature)).length).toBeGreaterThan(250)
    const trainPrints = new Set(train.map(_.fingerprint))
    expect(seen.filter((g) => trainPrints.has(_.fingerprint(g)))).toEqual([])
  })

  it('the fingerprint tells games apart', () => {
    const prints = seeds(500).map((s) => _.fingerprint(_.generate('train', taskTypes)(s)))
    expect(new Set(prints).size).toBe(500)
  })
})
