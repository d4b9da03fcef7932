import { describe, expect, it } from 'vitest'
import * as _ from '../src/Task.js'

describe('Task', () => {
  it('phrases goals as ALFWorld does', () => {
    expect(_.goalText({ type: 'pick_clean_then_place_in_recep', object: 'lettuce', target: 'fridge' })).toBe('put a clean lettuce in fridge.')
    expect(_.goalText({ type: 'pick_and_place_simple', object: 'spraybottle', target: 'toilet' })).toBe('put some spraybottle on toilet.')
    expect(_.goalText({ type: 'pick_and_place_simple', object: 'mug', target: 'cabinet' })).toBe('put some mug in cabinet.')
    expect(_.goalText({ type: 'look_at_obj_in_light', object: 'cd', target: 'desklamp' })).toBe('look at cd under the desklamp.')
    expect(_.goalText({ type: 'pick_heat_then_place_in_recep', object: 'egg', target: 'countertop' })).toBe('put a hot egg in countertop.')
    expect(_.goalText({ type: 'pick_cool_then_place_in_recep', object: 'pan', target: 'shelf' })).toBe('put a cool pan in shelf.')
    expect(_.goalText({ type: 'pick_two_obj_and_place', object: 'pillow', target: 'sofa' })).toBe('put two pillow in sofa.')
  })

  it('lists the six task types, each with objects and subgoals', () => {
    expect(_.taskTypes).toHaveLength(6)
    for (const type of _.taskTypes) {
      expect(_.objectsFor(type).length).toBeGreaterThan(3)
      expect(_.subgoals(type).length).toBeGreaterThanOrEqual(3)
      expect(_.roomsFor(type).length).toBeGreaterThan(0)
    }
  })

  it('asks only for objects that afford the transformation', () => {
    expect(_.objectsFor('pick_heat_then_place_in_recep')).toContain('potato')
    expect(_.objectsFor('pick_heat_then_place_in_recep')).not.toContain('lettuce')
    expect(_.objectsFor('pick_cool_then_place_in_recep')).toContain('lettuce')
    expect(_.objectsFor('pick_clean_then_place_in_recep')).not.toContain('book')
    expect(_.objectsFor('pick_and_place_simple')).not.toContain('desklamp')
  })

  it('never targets the appliance of the transformation', () => {
    for (const o of _.objectsFor('pick_heat_then_place_in_recep')) expect(_.targetsFor('pick_heat_then_place_in_recep', o)).not.toContain('microwave')
    for (const o of _.objectsFor('pick_cool_then_place_in_recep')) expect(_.targetsFor('pick_cool_then_place_in_recep', o)).not.toContain('fridge')
    for (const o of _.objectsFor('pick_clean_then_place_in_recep')) expect(_.targetsFor('pick_clean_then_place_in_recep', o)).not.toContain('sinkbasin')
    expect(_.targetsFor('look_at_obj_in_light', 'book')).toEqual([])
  })
})
