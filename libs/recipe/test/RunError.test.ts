import { describe, expect, it } from 'vitest'
import * as _ from '../src/RunError.js'

describe('RunError', () => {
  it('constructors tag the message', () => {
    expect(_.failed('x')).toEqual({ _tag: 'Failed', message: 'x' })
    expect(_.stopped('y')).toEqual({ _tag: 'Stopped', message: 'y' })
  })
})
