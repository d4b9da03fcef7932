import { describe, expect, it } from 'vitest'
import * as _ from '../src/Suite.js'

const o = (name: string, passed: boolean): _.TestOutcome => ({ file: 't.js', name, passed, message: passed ? '' : 'boom' })

describe('Suite', () => {
  it('scores each expected test once: missing, failed or reported twice counts as failed; unknown names do not help', () => {
    const expected = ['t.js > a', 't.js > b', 't.js > c', 't.js > d']
    const outcomes = [o('a', true), o('b', false), o('d', true), o('d', true), o('zzz', true)]
    expect(_.score(expected, outcomes)).toEqual({ passed: 1, total: 4, failing: ['t.js > b', 't.js > c', 't.js > d'] })
  })

  it('names outcomes by file and test', () => {
    expect(_.qualified(o('adds', true))).toBe('t.js > adds')
  })
})
