/**
 * Search/replace edits, the one way the agent changes files. The block syntax (as in aider's
 * "SEARCH/REPLACE" format):
 *
 * ```
 * edit src/lru.js
 * <<<<<<< SEARCH
 * exact lines to find (whitespace matters)
 * =======
 * the lines that replace them
 * >>>>>>> REPLACE
 * ```
 *
 * One `edit` may carry several blocks, applied in order, all or nothing. The SEARCH text must
 * occur exactly once in the file. An empty SEARCH creates a file that does not exist yet.
 *
 * @since 0.1.0
 */
import * as E from 'fp-ts/lib/Either.js'

/**
 * One block: replace the single occurrence of `search` with `replace`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Block {
  readonly search: string
  readonly replace: string
}

/**
 * An edit of one file.
 *
 * @category models
 * @since 0.1.0
 */
export interface FileEdit {
  readonly file: string
  readonly blocks: ReadonlyArray<Block>
}

const SEARCH = '<<<<<<< SEARCH'
const DIVIDER = '======='
const REPLACE = '>>>>>>> REPLACE'

/**
 * Parses the block lines that follow `edit FILE`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const parseBlocks = (text: string): E.Either<string, ReadonlyArray<Block>> => {
  const lines = text.replace(/\r\n/g, '\n').split('\n')
  const blocks: Block[] = []
  let i = 0
  while (i < lines.length) {
    const line = lines[i]!
    if (line.trim() === '') {
      i++
      continue
    }
    if (line.trimEnd() !== SEARCH) return E.left(`expected "${SEARCH}" on line ${i + 1}, found ${JSON.stringify(line.slice(0, 40))}`)
    const divider = lines.findIndex((l, j) => j > i && l.trimEnd() === DIVIDER)
    if (divider === -1) return E.left(`missing "${DIVIDER}" after the SEARCH on line ${i + 1}`)
    const end = lines.findIndex((l, j) => j > divider && l.trimEnd() === REPLACE)
    if (end === -1) return E.left(`missing "${REPLACE}" after the divider on line ${divider + 1}`)
    blocks.push({ search: lines.slice(i + 1, divider).join('\n'), replace: lines.slice(divider + 1, end).join('\n') })
    i = end + 1
  }
  return blocks.length === 0 ? E.left(`no ${SEARCH} / ${DIVIDER} / ${REPLACE} block`) : E.right(blocks)
}

const occurrences = (text: string, needle: string): number => {
  let n = 0
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) n++
  return n
}

/**
 * Applies blocks to a file's text (`undefined` when the file does not exist yet). All or
 * nothing: the first failing block is reported and nothing changes.
 *
 * @category combinators
 * @since 0.1.0
 */
export const applyBlocks =
  (blocks: ReadonlyArray<Block>) =>
  (text: string | undefined): E.Either<string, string> => {
    let out = text
    for (const [i, block] of blocks.entries()) {
      const name = `block ${i + 1}`
      if (block.search === '') {
        if (out !== undefined) return E.left(`${name}: empty SEARCH only creates a new file, and this file exists`)
        out = block.replace
        continue
      }
      if (out === undefined) return E.left(`${name}: the file does not exist (an empty SEARCH creates it)`)
      const n = occurrences(out, block.search)
      if (n === 0) return E.left(`${name}: SEARCH text not found (it must match exactly, whitespace included)`)
      if (n > 1) return E.left(`${name}: SEARCH text matches ${n} times; add surrounding lines to make it unique`)
      const at = out.indexOf(block.search)
      out = out.slice(0, at) + block.replace + out.slice(at + block.search.length)
    }
    return out === undefined ? E.left('nothing to write') : E.right(out)
  }

/**
 * Renders an edit as the action text the agent would write.
 *
 * @category destructors
 * @since 0.1.0
 */
export const render = (edit: FileEdit): string =>
  [
    `edit ${edit.file}`,
    ...edit.blocks.flatMap((b) => [SEARCH, ...(b.search === '' ? [] : [b.search]), DIVIDER, ...(b.replace === '' ? [] : [b.replace]), REPLACE])
  ].join('\n')

/**
 * The smallest edit that turns `from` into `to`: one block spanning the changed lines, with just
 * enough context lines that its SEARCH is non-empty and unique in `from`. This is how gold
 * patches (mutant -> original) are written. `from` must have a non-blank line (a blank file has
 * no SEARCH text to anchor on; that is a programmer error).
 *
 * @category constructors
 * @since 0.1.0
 */
export const diff = (file: string, from: string, to: string): FileEdit | undefined => {
  if (from === to) return undefined
  if (from.trim() === '') throw new RangeError(`Edit.diff: ${file} is blank, nothing to anchor a SEARCH on`)
  const a = from.split('\n')
  const b = to.split('\n')
  let head = 0
  while (head < a.length && head < b.length && a[head] === b[head]) head++
  let tail = 0
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++
  // A hunk that only deletes or only inserts lines needs a context line, or the newline that
  // separated it would be left behind.
  const pure = a.length - tail - head <= 0 || b.length - tail - head <= 0
  for (let c = pure ? 1 : 0; ; c++) {
    const lo = Math.max(0, head - c)
    const search = a.slice(lo, Math.min(a.length, a.length - tail + c)).join('\n')
    const replace = b.slice(lo, Math.min(b.length, b.length - tail + c)).join('\n')
    if (search.trim() !== '' && occurrences(from, search) === 1) return { file, blocks: [{ search, replace }] }
    if (lo === 0 && a.length - tail + c >= a.length) return { file, blocks: [{ search: from, replace: to }] }
  }
}
