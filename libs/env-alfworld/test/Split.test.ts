import { describe, expect, it } from 'vitest'
import * as _ from '../src/Split.js'
import { objectsFor, taskTypes } from '../src/Task.js'

describe('Split', () => {
  it('keeps unseen layouts out of train and valid-seen', () => {
    const unseen = new Set(_.layoutIds('valid-unseen'))
    expect(unseen.size).toBe(_.heldOutLayouts.length)
    for (const id of [..._.layoutIds('train'), ..._.layoutIds('valid-seen')]) expect(unseen.has(id)).toBe(false)
  })

  it('holds out, per task type, objects that the type can ask for, and only in valid-unseen', () => {
    for (const type of taskTypes) {
      const held = _.heldOutObjects[type]
      for (const o of held) expect(objectsFor(type)).toContain(o)
      expect(_.taskObjects('valid-unseen', type)).toEqual(objectsFor(type).filter((o) => held.includes(o)))
      for (const split of ['train', 'valid-seen'] as const) {
        const seen = _.taskObjects(split, type)
        expect(seen.length).toBeGreaterThan(0)
        for (const o of held) expect(seen).not.toContain(o)
      }
    }
  })

  it('decodes split names', () => {
    expect(_.Split.is('valid-unseen')).toBe(true)
    expect(_.Split.is('test')).toBe(false)
  })
})
