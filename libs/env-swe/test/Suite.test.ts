import { describe, expect, it } from 'vitest'
import * as _ from '../src/Suite.js'

const line = (name: string, passed: boolean) => `${_.MARKER}${JSON.stringify({ name, passed, message: passed ? '' : 'boom' })}`

describe('Suite', () => {
  it('reads only marked lines, even glued to the test output', () => {
    const stdout = ['hello', line('a', true), `partial output${line('b', false)}`, `${_.MARKER}{broken json`, ''].join('\n')
    expect(_.parseOutcomes('t.js', stdout)).toEqual([
      { file: 't.js', name: 'a', passed: true, message: '' },
      { file: 't.js', name: 'b', passed: false, message: 'boom' }
    ])
  })

  it('scores each expected test once; missing tests fail; forged extra or duplicate passes do not help', () => {
    const expected = ['t.js > a', 't.js > b', 't.js > c']
    const outcomes = _.parseOutcomes('t.js', [line('a', true), line('b', false), line('b', true), line('zzz', true), line('a', true)].join('\n'))
    expect(_.score(expected, outcomes)).toEqual({ passed: 1, total: 3, failing: ['t.js > b', 't.js > c'] })
  })
})
