import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Edit.js'

const lines = fc.array(fc.constantFrom('a', 'b', 'c', 'if (x) return 1', '', '  y = 2'), { minLength: 1, maxLength: 12 })

describe('Edit', () => {
  it('diff produces an edit that turns from into to', () => {
    fc.assert(
      fc.property(
        lines.filter((a) => a.some((l) => l.trim() !== '')),
        lines,
        (a, b) => {
          const from = a.join('\n')
          const to = b.join('\n')
          const e = _.diff('f.js', from, to)
          if (from === to) expect(e).toBeUndefined()
          else expect(_.applyBlocks(e!.blocks)(from)).toEqual(E.right(to))
        }
      )
    )
  })

  it('rendered edits parse back to the same blocks', () => {
    const edit = {
      file: 'src/a.js',
      blocks: [
        { search: 'x < y\nz', replace: 'x <= y\nz' },
        { search: 'q', replace: '' }
      ]
    }
    const [head, ...rest] = _.render(edit).split('\n')
    expect(head).toBe('edit src/a.js')
    expect(_.parseBlocks(rest.join('\n'))).toEqual(E.right(edit.blocks))
  })

  it('refuses an ambiguous or missing SEARCH and changes nothing', () => {
    const text = 'a\nb\na\n'
    expect(_.applyBlocks([{ search: 'a', replace: 'z' }])(text)).toEqual(E.left(expect.stringContaining('matches 2 times')))
    expect(
      _.applyBlocks([
        { search: 'b', replace: 'B' },
        { search: 'nope', replace: '' }
      ])(text)
    ).toEqual(E.left(expect.stringContaining('block 2: SEARCH text not found')))
  })

  it('creates a file only from an empty SEARCH', () => {
    expect(_.applyBlocks([{ search: '', replace: 'new' }])(undefined)).toEqual(E.right('new'))
    expect(E.isLeft(_.applyBlocks([{ search: '', replace: 'new' }])('old'))).toBe(true)
    expect(E.isLeft(_.applyBlocks([{ search: 'x', replace: 'y' }])(undefined))).toBe(true)
  })

  it('reports a missing divider or terminator', () => {
    expect(_.parseBlocks('<<<<<<< SEARCH\na\n>>>>>>> REPLACE')).toEqual(E.left(expect.stringContaining('missing "======="')))
    expect(_.parseBlocks('<<<<<<< SEARCH\na\n=======\nb')).toEqual(E.left(expect.stringContaining('missing ">>>>>>> REPLACE"')))
    expect(_.parseBlocks('hello')).toEqual(E.left(expect.stringContaining('expected "<<<<<<< SEARCH"')))
  })
})
