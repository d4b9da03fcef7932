import { describe, expect, it } from 'vitest'
import * as _ from '../src/Suite.js'

const o = (name: string, passed: boolean): _.TestOutcome => ({ file: 't.js', name, passed, message: passed ? '' : 'boom' })

describe('Suite', () => {
  it('scores each expected test once: missing, failed or reported twice counts as failed; unknown names do not help', () => {
    const expected = ['t.js > a', 't.js > b', 't.js > c', 't.js > d']
    const outcomes = [o('a', true), o('b', false), o('d', true), o('d', true), o('zzz', true)]
    expect(_.score(expected, outcomes)).toEqual({ passed: 1, total: 4, failing: ['t.js > b', 't.js > c', 't.js > d'] })
  })

  it('scrubs the host paths out of what a run shows: repository-relative files, <harness>', () => {
    const clean = _.scrub({ repoDir: '/tmp/mtrl-swe-12-ab/repo', harnessDir: '/tmp/mtrl-swe-12-ab/harness' })
    expect(clean('at f (/tmp/mtrl-swe-12-ab/repo/src/m.js:3:9)\nat /tmp/mtrl-swe-12-ab/harness/main.cjs:1 in /tmp/mtrl-swe-12-ab/repo')).toBe(
      'at f (src/m.js:3:9)\nat <harness>/main.cjs:1 in .'
    )
  })

  it('names outcomes by file and test', () => {
    expect(_.qualified(o('adds', true))).toBe('t.js > adds')
  })
})
