/**
 * Mutation operators: the bugs of the task stream. Each operator finds *sites* in a source file
 * (a span of text and its replacement); a task applies one or more sites, and the gold patch is
 * the inverse edit. The operators follow classic mutation testing (Offutt et al., "An
 * experimental determination of sufficient mutant operators", 1996), restricted to the kinds of
 * slips people make: boundaries, comparisons, argument order, missing guards, constants, returns.
 *
 * Sites are found on source with strings and comments blanked out, so a `<` inside a string is
 * never a site. Only `src/` files are mutated, never tests.
 *
 * @since 0.1.0
 */
import * as t from 'io-ts'
import { maskSource } from './internal/mask.js'

/**
 * The operator names.
 *
 * - `offByOne`: `<` <-> `<=`, `>` <-> `>=`, or a `+ 1` / `- 1` dropped;
 * - `flipComparison`: `<` <-> `>`, `<=` <-> `>=`, `===` <-> `!==`;
 * - `swapArguments`: `f(a, b)` -> `f(b, a)` for simple arguments;
 * - `dropGuard`: a one-line `if (...) return|throw|continue|break ...` removed;
 * - `wrongConstant`: a numeric literal changed (0 -> 1, 1 -> 0, n -> n + 1);
 * - `wrongReturn`: `return true|false|-1|0|1|null` answers the wrong literal.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Operator = t.keyof({
  offByOne: null,
  flipComparison: null,
  swapArguments: null,
  dropGuard: null,
  wrongConstant: null,
  wrongReturn: null
})
/** @category models @since 0.1.0 */
export type Operator = t.TypeOf<typeof Operator>

/**
 * One mutation: replace `before` at `[start, start + before.length)` of `file` with `after`.
 * Offsets are into the original file text.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Mutation = t.type({
  file: t.string,
  operator: Operator,
  start: t.number,
  line: t.number,
  before: t.string,
  after: t.string
})
/** @category models @since 0.1.0 */
export type Mutation = t.TypeOf<typeof Mutation>

const FLIP: Readonly<Record<string, string>> = { '<': '>', '>': '<', '<=': '>=', '>=': '<=', '===': '!==', '!==': '===', '==': '!=', '!=': '==' }
const BOUNDARY: Readonly<Record<string, string>> = { '<': '<=', '<=': '<', '>': '>=', '>=': '>' }
const RETURNS: Readonly<Record<string, string>> = { true: 'false', false: 'true', '-1': '1', '0': '1', '1': '-1', null: 'undefined' }
const NOT_CALLEES = new Set(['if', 'for', 'while', 'switch', 'catch', 'function', 'return', 'require', 'test', 'typeof'])
const SIMPLE_ARG = /^[\w$.[\]]+$/

const lineOf = (text: string, offset: number): number => {
  let n = 1
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) n++
  return n
}

/**
 * Every mutation site of one file, in source order (deterministic).
 *
 * @category constructors
 * @since 0.1.0
 */
export const sitesOf = (file: string, source: string): ReadonlyArray<Mutation> => {
  const code = maskSource(source)
  const out: Mutation[] = []
  const push = (operator: Operator, start: number, before: string, after: string): void => {
    out.push({ file, operator, start, line: lineOf(source, start), before, after })
  }
  for (const m of code.matchAll(/(?<![=<>!])(===|!==|<=|>=|==|!=|<|>)(?![=<>])/g)) {
    const op = m[1]!
    push('flipComparison', m.index, op, FLIP[op]!)
    const boundary = BOUNDARY[op]
    if (boundary !== undefined) push('offByOne', m.index, op, boundary)
  }
  for (const m of code.matchAll(/(?<=[\w)\]]) [+-] 1(?![\w.])/g)) push('offByOne', m.index, m[0], '')
  for (const m of code.matchAll(/(?<![\w$.])\d+(?![\w.])/g)) {
    const before = code.slice(Math.max(0, m.index - 3), m.index)
    if (before.endsWith('+= ') || before.endsWith('-= ') || /[+-] $/.test(before)) continue
    const n = Number(m[0])
    push('wrongConstant', m.index, m[0], n === 0 ? '1' : n === 1 ? '0' : String(n + 1))
  }
  for (const m of code.matchAll(/\breturn (true|false|-1|0|1|null)(?![\w.])/g)) {
    const literal = m[1]!
    push('wrongReturn', m.index, m[0], `return ${RETURNS[literal]!}`)
  }
  for (const m of code.matchAll(/(?<![\w$.])([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\(([^(),\n]+), ([^(),\n]+)\)/g)) {
    const [whole, callee, a, b] = [m[0], m[1]!, m[2]!.trim(), m[3]!.trim()]
    if (NOT_CALLEES.has(callee) || !SIMPLE_ARG.test(a) || !SIMPLE_ARG.test(b) || a === b) continue
    if (/function\s+$/.test(code.slice(Math.max(0, m.index - 12), m.index))) continue
    if (/^\s*\{/.test(code.slice(m.index + whole.length, m.index + whole.length + 3))) continue
    const open = m.index + callee.length + 1
    const args = source.slice(open, m.index + whole.length - 1)
    push('swapArguments', open, args, `${b}, ${a}`)
  }
  const lines = code.split('\n')
  let offset = 0
  lines.forEach((text, i) => {
    const next = lines[i + 1] ?? ''
    if (/^\s*if \(.*\) (return|throw|continue|break)\b/.test(text) && !/^\s*else\b/.test(next)) {
      push('dropGuard', offset, `${source.slice(offset, offset + text.length)}\n`, '')
    }
    offset += text.length + 1
  })
  return out.sort((x, y) => x.start - y.start || x.operator.localeCompare(y.operator))
}

/**
 * Whether two mutations touch overlapping text of the same file (they cannot both apply).
 *
 * @category destructors
 * @since 0.1.0
 */
export const overlaps = (a: Mutation, b: Mutation): boolean =>
  a.file === b.file && a.start < b.start + Math.max(1, b.before.length) && b.start < a.start + Math.max(1, a.before.length)

/**
 * Applies non-overlapping mutations of one file to its text. Throws (a programmer error) when
 * a mutation does not match the text or two overlap.
 *
 * @category combinators
 * @since 0.1.0
 */
export const applyToText =
  (mutations: ReadonlyArray<Mutation>) =>
  (text: string): string => {
    const sorted = [...mutations].sort((a, b) => b.start - a.start)
    let out = text
    sorted.forEach((m, i) => {
      const prev = sorted[i - 1]
      if (prev !== undefined && overlaps(prev, m)) throw new Error(`Mutation.apply: overlapping mutations at ${m.file}:${m.line}`)
      if (out.slice(m.start, m.start + m.before.length) !== m.before) throw new Error(`Mutation.apply: ${m.file}:${m.line} does not match`)
      out = out.slice(0, m.start) + m.after + out.slice(m.start + m.before.length)
    })
    return out
  }

/**
 * Applies mutations to a file map (path -> text); files without mutations are unchanged.
 *
 * @category combinators
 * @since 0.1.0
 */
export const apply =
  (mutations: ReadonlyArray<Mutation>) =>
  (files: Readonly<Record<string, string>>): Readonly<Record<string, string>> => {
    const out: Record<string, string> = { ...files }
    for (const file of new Set(mutations.map((m) => m.file))) {
      const text = files[file]
      if (text === undefined) throw new Error(`Mutation.apply: no file ${file}`)
      out[file] = applyToText(mutations.filter((m) => m.file === file))(text)
    }
    return out
  }

/**
 * A stable identifier of a mutation (used as a cache key together with the project).
 *
 * @category destructors
 * @since 0.1.0
 */
export const key = (m: Mutation): string => `${m.file}@${m.start}:${m.operator}:${JSON.stringify(m.after)}`

/**
 * One line for humans: `src/lru.js:12 flipComparison '<' -> '>'`.
 *
 * @category destructors
 * @since 0.1.0
 */
export const describe = (m: Mutation): string => `${m.file}:${m.line} ${m.operator} ${JSON.stringify(m.before.trim())} -> ${JSON.stringify(m.after.trim())}`
