/**
 * Chat templates rendered with `@huggingface/jinja` (0.5.13) under Python's semantics, as Jinja2
 * renders them inside `transformers`' `apply_chat_template`. The library's parser and interpreter
 * are used as they are; one interpreter per render has these methods replaced (no fork, no patch
 * of the package):
 * - `renderBlock`: `{{ x }}` prints Python's `str(x)`: `None`, `True`, `2.0`, `['a', 1]`, `{'k': 'v'}`
 *   (the library prints nothing for none, `true`, `2`, JSON);
 * - `renderFor`: a string iterates over its characters and an undefined value over nothing (the
 *   library refuses both: "Expected iterable or object type in for loop"); tuples unpack like lists;
 * - `applyFilter`: `string` is `str()` for every value; `trim` strips `str()` of any value (undefined
 *   is `''`); `length` of undefined is 0; `tojson` is transformers' `json.dumps` (floats as `2.0`,
 *   keys sorted by code point, positional `ensure_ascii`); the rest is the library's;
 * - `evaluateBinaryExpression`: `~` joins `str()` of both sides (none is `None`); `+` of a string and
 *   a non-string is Python's TypeError (the library joins them);
 * - `evaluateTestExpression`: `iterable` and `sequence` hold for mappings and undefined too.
 * Numbers become floats where the JSON they came from wrote them so (`FloatJson`), or where they are
 * not whole. Globals are transformers' (`raise_exception`, `strftime_now`, `range`, none/true/false).
 */
import { Environment, Interpreter, Template } from '@huggingface/jinja'
import * as FloatJson from './floatJson.js'
import * as Py from './pyValues.js'

type Value = Py.Value
type Node = { readonly type: string } & Record<string, unknown>
type Scope = Environment
type Make = new (value: unknown) => Value

const probe = (x: unknown): Make => (new Environment().set('x', x) as object).constructor as Make
const StringValue = probe('')
const FloatValue = probe(0.5)
const IntegerValue = probe(1)
const ArrayValue = probe([])
const ObjectValue = probe({})
const BooleanValue = probe(true)
const NullValue = probe(null)
const UndefinedValue = probe(undefined)

/** A JavaScript value as a runtime value; numbers marked by `FloatJson` (or not whole) are floats. */
export const toRuntime = (x: unknown, holder?: object, key?: string | number): Value => {
  if (typeof x === 'number')
    return holder !== undefined && key !== undefined && FloatJson.isFloat(holder, key)
      ? new FloatValue(x)
      : Number.isInteger(x)
        ? new IntegerValue(x)
        : new FloatValue(x)
  if (Array.isArray(x)) return new ArrayValue(x.map((e, i) => toRuntime(e, x, i)))
  if (x !== null && typeof x === 'object') return new ObjectValue(new Map(Object.entries(x).map(([k, v]) => [k, toRuntime(v, x, k)])))
  if (typeof x === 'string') return new StringValue(x)
  if (typeof x === 'boolean') return new BooleanValue(x)
  if (x === null) return new NullValue(null)
  if (x === undefined) return new UndefinedValue(undefined)
  return new Environment().set('x', x) as Value
}

interface Base {
  evaluate(node: unknown, scope: Scope): Value
  renderIf(node: unknown, scope: Scope): string
  renderFor(node: unknown, scope: Scope): string
  executeSet(node: unknown, scope: Scope): void
  applyFilter(operand: Value, filter: Node, scope: Scope): Value
  evaluateArguments(args: unknown, scope: Scope): [Value[], Map<string, Value>]
  evaluateBinaryExpression(node: Node, scope: Scope): Value
  evaluateTestExpression(node: Node, scope: Scope): Value
  renderBlock(statements: ReadonlyArray<Node>, scope: Scope): string
  run(program: unknown): Value
}

// A name no template can write (it has a space), for values handed to the library's own methods.
const hidden = (n: number): Node => ({ type: 'Identifier', value: ` mtrl ${n}` })

/** `method(node')` where each `[key, value]` of `values` replaces `node[key]` by that already evaluated value. */
const withValues = <A>(scope: Scope, node: Node, values: ReadonlyArray<readonly [string, Value]>, method: (node: Node, scope: Scope) => A): A => {
  const inner = new Environment(scope)
  const replaced: Record<string, unknown> = { ...node }
  values.forEach(([key, v], i) => {
    inner.setVariable(hidden(i).value as string, v)
    replaced[key] = hidden(i)
  })
  return method(replaced as Node, inner)
}

const isString = (v: Value): boolean => v.type === 'StringValue'
const pyType = (v: Value): string =>
  ({ NullValue: 'NoneType', IntegerValue: 'int', FloatValue: 'float', BooleanValue: 'bool', ArrayValue: 'list', ObjectValue: 'dict' })[v.type] ?? v.type

const tojson = (it: Base, operand: Value, filter: Node, scope: Scope): Value => {
  const [positional, kwargs] = filter.type === 'CallExpression' ? it.evaluateArguments(filter['args'], scope) : [[], new Map<string, Value>()]
  const arg = (name: string, at: number): Value | undefined => kwargs.get(name) ?? positional[at]
  const indent = arg('indent', 1)
  const separators = arg('separators', 2)
  const options: Py.DumpOptions = {
    ensureAscii: arg('ensure_ascii', 0)?.value === true,
    indent: indent?.type === 'IntegerValue' ? (indent.value as number) : null,
    separators: separators !== undefined && Array.isArray(separators.value) ? ((separators.value as Value[]).map((s) => s.value) as [string, string]) : null,
    sortKeys: arg('sort_keys', 3)?.value === true
  }
  return new StringValue(Py.dumps(options)(operand))
}

const applyFilter =
  (it: Base, base: Base['applyFilter']) =>
  (operand: Value, filter: Node, scope: Scope): Value => {
    const name = filter.type === 'Identifier' ? (filter['value'] as string) : ((filter['callee'] as Node | undefined)?.['value'] as string | undefined)
    if (name === 'tojson') return tojson(it, operand, filter, scope)
    if (filter.type !== 'Identifier') return base(operand, filter, scope)
    if (name === 'string') return new StringValue(Py.str(operand))
    if (name === 'trim') return new StringValue(Py.strip(Py.str(operand)))
    if (name === 'length' && operand.type === 'UndefinedValue') return new IntegerValue(0)
    return base(operand, filter, scope)
  }

const renderBlock =
  (it: Base) =>
  (statements: ReadonlyArray<Node>, scope: Scope): string => {
    let out = ''
    for (const s of statements) {
      if (s.type === 'StringLiteral') out += s['value'] as string
      else if (s.type === 'If') out += it.renderIf(s, scope)
      else if (s.type === 'For') out += it.renderFor(s, scope)
      else if (s.type === 'Set') it.executeSet(s, scope)
      else if (s.type !== 'Comment') {
        const v = it.evaluate(s, scope)
        if (s.type !== 'Macro') out += Py.str(v)
      }
    }
    return out
  }

const renderFor =
  (it: Base, base: Base['renderFor']) =>
  (node: Node, scope: Scope): string => {
    const select = (node['iterable'] as Node).type === 'SelectExpression' ? (node['iterable'] as Node) : undefined
    const v = it.evaluate(select === undefined ? node['iterable'] : select['lhs'], scope)
    const listed = isString(v) ? new ArrayValue([...(v.value as string)].map((c) => new StringValue(c))) : v.type === 'UndefinedValue' ? new ArrayValue([]) : v
    // `for a, b in ((1, 2), ...)`: the library unpacks lists only
    const unpacks = (node['loopvar'] as Node).type === 'TupleLiteral' && Array.isArray(listed.value)
    const iterable = unpacks ? new ArrayValue((listed.value as Value[]).map((x) => (x.type === 'TupleValue' ? new ArrayValue(x.value) : x))) : listed
    return select === undefined
      ? withValues(scope, node, [['iterable', iterable]], (n, s) => base(n, s))
      : withValues(scope, select, [['lhs', iterable]], (sel, s) => base({ ...node, iterable: sel }, s))
  }

const binary =
  (it: Base, base: Base['evaluateBinaryExpression']) =>
  (node: Node, scope: Scope): Value => {
    const op = (node['operator'] as Node)['value']
    if (op !== '~' && op !== '+') return base(node, scope)
    const left = it.evaluate(node['left'], scope)
    const right = it.evaluate(node['right'], scope)
    if (op === '~') return new StringValue(Py.str(left) + Py.str(right))
    if (isString(left) !== isString(right)) {
      throw new TypeError(
        isString(left) ? `can only concatenate str (not "${pyType(right)}") to str` : `unsupported operand type(s) for +: '${pyType(left)}' and 'str'`
      )
    }
    return withValues(
      scope,
      node,
      [
        ['left', left],
        ['right', right]
      ],
      base
    )
  }

const test =
  (it: Base, base: Base['evaluateTestExpression']) =>
  (node: Node, scope: Scope): Value => {
    const name = (node['test'] as Node)['value']
    if (name !== 'iterable' && name !== 'sequence') return base(node, scope)
    const v = it.evaluate(node['operand'], scope)
    const holds = ['ArrayValue', 'TupleValue', 'StringValue', 'ObjectValue', 'UndefinedValue'].includes(v.type)
    return new BooleanValue(node['negate'] === true ? !holds : holds)
  }

/** Python's `range(stop)` / `range(start, stop[, step])`. */
const range = (...args: number[]): number[] => {
  const [start, stop, step] = args.length === 1 ? [0, args[0]!, 1] : [args[0]!, args[1]!, args[2] ?? 1]
  if (step === 0) throw new Error('range() arg 3 must not be zero')
  const out: number[] = []
  for (let i = start; step > 0 ? i < stop : i > stop; i += step) out.push(i)
  return out
}

const months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']
const days = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']

/** Python's `datetime.strftime` for the directives chat templates use (local time, C locale). */
export const strftime =
  (format: string) =>
  (d: Date): string => {
    const two = (n: number): string => String(n).padStart(2, '0')
    const fields: Record<string, string> = {
      d: two(d.getDate()),
      m: two(d.getMonth() + 1),
      Y: String(d.getFullYear()),
      y: two(d.getFullYear() % 100),
      B: months[d.getMonth()]!,
      b: months[d.getMonth()]!.slice(0, 3),
      A: days[d.getDay()]!,
      a: days[d.getDay()]!.slice(0, 3),
      H: two(d.getHours()),
      M: two(d.getMinutes()),
      S: two(d.getSeconds()),
      '%': '%'
    }
    return format.replace(/%(.)/g, (m, c: string) => fields[c] ?? m)
  }

/** A parsed template, to render many times; `unsupported`: why mtrl cannot render it as Python would. */
export interface Compiled {
  readonly program: unknown
  readonly unsupported?: string
}

/** Every AST node under `node` (objects with a `type`, through arrays and Maps). */
const nodes = function* (node: unknown): Generator<Node> {
  if (node === null || typeof node !== 'object') return
  if (node instanceof Map) {
    for (const [k, v] of node) {
      yield* nodes(k)
      yield* nodes(v)
    }
    return
  }
  if (Array.isArray(node)) {
    for (const x of node) yield* nodes(x)
    return
  }
  if (typeof (node as Node).type === 'string') yield node as Node
  for (const v of Object.values(node)) yield* nodes(v)
}

/** A dict literal with a key that is not a string (`{0: 0, 512: 128}`): the library's mappings hold string keys only. */
const nonStringKeys = (program: unknown): string | undefined => {
  for (const n of nodes(program)) {
    if (n.type !== 'ObjectLiteral') continue
    const key = [...(n['value'] as Map<Node, Node>).keys()].find((k) => k.type !== 'StringLiteral')
    if (key !== undefined) return `it builds a dict with a key that is not a string (a ${key.type}); @huggingface/jinja holds string keys only`
  }
  return undefined
}

/**
 * Parses `source` as transformers does (trim_blocks, lstrip_blocks; line ends normalized to \n as
 * Jinja2's lexer does); throws the parser's error.
 */
export const compile = (source: string): Compiled => {
  const program = new Template(source.replace(/\r\n?/g, '\n')).parsed
  const unsupported = nonStringKeys(program)
  return unsupported === undefined ? { program } : { program, unsupported }
}

/**
 * Renders a compiled template with `variables` (JavaScript values; `FloatJson` floats kept).
 * `now` is what `strftime_now` reads (the clock by default). Throws the template's error.
 */
export const render =
  (variables: Readonly<Record<string, unknown>>, now: () => Date = () => new Date()) =>
  (compiled: Compiled): string => {
    const env = new Environment()
    for (const [name, v] of [
      ['false', false],
      ['true', true],
      ['none', null],
      ['False', false],
      ['True', true],
      ['None', null]
    ] as const)
      env.set(name, v)
    env.set('raise_exception', (message: unknown) => {
      throw new Error(String(message))
    })
    env.set('range', range)
    env.set('strftime_now', (format: string) => strftime(format)(now()))
    for (const [name, v] of Object.entries(variables)) env.setVariable(name, toRuntime(v, variables, name) as never)
    const it = new Interpreter(env) as unknown as Base
    const base = {
      applyFilter: it.applyFilter.bind(it),
      renderFor: it.renderFor.bind(it),
      binary: it.evaluateBinaryExpression.bind(it),
      test: it.evaluateTestExpression.bind(it)
    }
    it.renderBlock = renderBlock(it)
    it.applyFilter = applyFilter(it, base.applyFilter)
    it.renderFor = renderFor(it, base.renderFor) as Base['renderFor']
    it.evaluateBinaryExpression = binary(it, base.binary)
    it.evaluateTestExpression = test(it, base.test)
    return it.run(compiled.program).value as string
  }
