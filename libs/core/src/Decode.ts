/**
 * Decoding at the edges: run an io-ts codec and turn its failures into one readable message
 * that names the path of every bad field (`stages.0.trainer.lr: expected a positive number, got -1`).
 *
 * Use it wherever data enters mtrl: recipe files, CLI flags, JSON from environment servers,
 * checkpoint metadata.
 *
 * @since 0.1.0
 */
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'

/**
 * A decoding failure: one entry per bad field, with its dotted path.
 *
 * @category models
 * @since 0.1.0
 */
export interface DecodeError {
  readonly _tag: 'DecodeError'
  /** What was being decoded, e.g. "recipe" or "POST /step response". */
  readonly subject: string
  readonly issues: ReadonlyArray<DecodeIssue>
}

/**
 * One bad field.
 *
 * @category models
 * @since 0.1.0
 */
export interface DecodeIssue {
  /** Dotted path from the root, `""` for the root itself. */
  readonly path: string
  /** The name of the type that was expected there. */
  readonly expected: string
  /** The value found there, as short JSON. */
  readonly actual: string
  /** When set, the whole message for this field (in place of `expected ..., got ...`). */
  readonly message?: string
}

const shortJson = (value: unknown): string => {
  if (value === undefined) return 'undefined'
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value)
  let text: string
  try {
    text = JSON.stringify(value) ?? String(value)
  } catch {
    text = String(value)
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}

/** A refinement's base codec (a refinement validates its base in its own context), down to a codec that is not one. */
const unrefined = (codec: { readonly _tag?: string; readonly type?: unknown } | undefined): { readonly _tag?: string } | undefined =>
  codec?._tag === 'RefinementType' ? unrefined(codec.type as { readonly _tag?: string; readonly type?: unknown }) : codec

const pathOf = (context: t.Context): string => {
  const keys: string[] = []
  for (let i = 1; i < context.length; i++) {
    const parent = unrefined(context[i - 1]?.type as { readonly _tag?: string; readonly type?: unknown } | undefined)
    // Union and intersection members are indexed too; they are not fields of the data.
    if (parent?._tag === 'UnionType' || parent?._tag === 'IntersectionType') continue
    const key = context[i]?.key
    if (key !== undefined && key !== '') keys.push(key)
  }
  return keys.join('.')
}

/**
 * Turns io-ts validation errors into issues. Among the alternatives of a union only the
 * deepest paths are kept, so the message points at the field that is actually wrong.
 *
 * @category destructors
 * @since 0.1.0
 */
export const issuesOf = (errors: t.Errors): ReadonlyArray<DecodeIssue> => {
  const all = errors.flatMap((error): DecodeIssue[] => {
    const verdict = throughUnions(error.context)
    if (verdict === 'drop') return []
    if (verdict !== undefined) return [verdict]
    const last = error.context[error.context.length - 1]
    const path = pathOf(error.context)
    if (error.message?.startsWith(wholeMessage) === true) {
      const message = error.message.slice(wholeMessage.length)
      return [{ path, expected: message, actual: shortJson(error.value), message }]
    }
    return [{ path, expected: error.message ?? last?.type.name ?? 'unknown', actual: shortJson(error.value) }]
  })
  // several alternatives failing at one field (a union's forms): the shortest description says it
  const best = new Map<string, DecodeIssue>()
  for (const issue of all) {
    const held = best.get(issue.path)
    if (held === undefined || (held.message === undefined && (issue.message !== undefined || issue.expected.length < held.expected.length)))
      best.set(issue.path, issue)
  }
  return all.filter((issue) => best.get(issue.path) === issue)
}

/** The literal values a member of a union takes at `key` (`kind: "textworld"`), if it fixes it. */
const literalsAt = (member: AnyCodec, key: string): ReadonlyArray<string> | undefined => {
  if (member._tag === 'UnionType') {
    const each = (member.types ?? []).map((m) => literalsAt(m as AnyCodec, key))
    return each.every((v): v is ReadonlyArray<string> => v !== undefined) ? each.flat() : undefined
  }
  const field = knownProps(member)?.[key] as (AnyCodec & { readonly value?: unknown; readonly keys?: Record<string, unknown> }) | undefined
  if (field?._tag === 'LiteralType' && typeof field.value === 'string') return [field.value]
  if (field?._tag === 'KeyofType' && field.keys !== undefined) return Object.keys(field.keys)
  return undefined
}

/** The field that tells a union's members apart (`kind`, `_tag` or `type`), with each member's values. */
const discriminantOf = (union: AnyCodec): { readonly key: string; readonly values: ReadonlyArray<ReadonlyArray<string>> } | undefined => {
  const members = (union.types ?? []) as ReadonlyArray<AnyCodec>
  for (const key of ['kind', '_tag', 'type']) {
    const values = members.map((m) => literalsAt(m, key))
    if (members.length > 1 && values.every((v): v is ReadonlyArray<string> => v !== undefined)) return { key, values }
  }
  return undefined
}

/**
 * An error's way through the discriminated unions on its path: the error of a member the data
 * did not choose is dropped; a missing or unknown discriminant becomes one issue naming the
 * alternatives (`stages.0.env: missing; one of textworld | alfworld | swe | http (the field
 * "kind" decides)`); otherwise `undefined`, the error stands as it is.
 */
const throughUnions = (context: t.Context): DecodeIssue | 'drop' | undefined => {
  // io-ts reports a union whose tag matches no member at the union itself: the last entry
  for (let i = 0; i < context.length; i++) {
    const union = context[i]!.type as AnyCodec
    if (union._tag !== 'UnionType') continue
    const d = discriminantOf(union)
    const value = context[i]!.actual
    if (d === undefined) continue
    const path = pathOf(context.slice(0, i + 1))
    const names = [...new Set(d.values.flat())]
    const one = `one of ${names.join(' | ')}`
    // a member of an outer union at the same field (an object form beside a string form): not an object is the other forms' business
    const inner = context.slice(0, i).some((c, j) => (c.type as AnyCodec)._tag === 'UnionType' && pathOf(context.slice(0, j + 1)) === path)
    if (inner && (typeof value !== 'object' || value === null || Array.isArray(value))) return undefined
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return {
        path,
        expected: one,
        actual: shortJson(value),
        message: `${value === undefined ? 'missing' : `expected an object, got ${shortJson(value)}`}; ${one} (the field "${d.key}" decides)`
      }
    const chosen = (value as Record<string, unknown>)[d.key]
    const at = path === '' ? d.key : `${path}.${d.key}`
    if (chosen === undefined) return { path: at, expected: one, actual: 'undefined', message: `missing; ${one} (the field that decides the rest)` }
    if (!names.includes(chosen as string)) return { path: at, expected: one, actual: shortJson(chosen), message: `expected ${one}, got ${shortJson(chosen)}` }
    if (i + 1 === context.length) return undefined
    const member = Number(context[i + 1]!.key)
    if (!(d.values[member] ?? []).includes(chosen as string)) return 'drop'
  }
  return undefined
}

/**
 * One line per issue: `path: expected TYPE, got VALUE`.
 *
 * @example
 * import { Decode } from '@mtrl/core'
 * import * as t from 'io-ts'
 * const r = Decode.decode('point', t.type({ x: t.number }))({ x: 'a' })
 * // Left: "point: x: expected number, got \"a\""
 *
 * @category destructors
 * @since 0.1.0
 */
export const formatError = (error: DecodeError): string => {
  const lines = error.issues.map(
    (issue) =>
      `  ${issue.path === '' ? '(root)' : issue.path}: ${issue.message ?? (issue.actual === 'undefined' ? `missing; expected ${issue.expected}` : `expected ${issue.expected}, got ${issue.actual}`)}`
  )
  return `invalid ${error.subject}:\n${lines.join('\n')}`
}

/**
 * A rule broken by a decoded value: the field it concerns (a path below the value), what was
 * expected there and what was found.
 *
 * @category models
 * @since 0.6.0
 */
export interface Violation {
  readonly path: ReadonlyArray<string>
  readonly expected: string
  readonly actual: unknown
  /** When set, the whole message for the field (in place of `expected ..., got ...`). */
  readonly message?: string
}

/** Marks an io-ts error message that is a whole message (a {@link Violation}'s `message`), not a type's name. */
const wholeMessage = '\u0000whole:'

/**
 * The codec with rules that bind its fields to each other (a bound set by another field, an
 * option that needs another): decoding checks them after the fields decode, and each broken
 * rule is an issue at its own field's path, so a recipe's error names the field to change. The
 * result is a refinement of `codec`, so {@link decodeStrict} still sees its fields.
 *
 * @example
 * import { Decode } from '@mtrl/core'
 * import * as t from 'io-ts'
 * const Range = Decode.withRules(t.type({ low: t.number, high: t.number }), (r) =>
 *   r.low <= r.high ? [] : [{ path: ['high'], expected: `at least low (${r.low})`, actual: r.high }]
 * )
 * Decode.decode('range', Range)({ low: 2, high: 1 }) // Left: high: expected at least low (2), got 1
 *
 * @category combinators
 * @since 0.6.0
 */
export const withRules = <C extends t.Any>(codec: C, rules: (value: t.TypeOf<C>) => ReadonlyArray<Violation>): t.RefinementC<C> =>
  new t.RefinementType(
    codec.name,
    (u): u is t.TypeOf<C> => codec.is(u) && rules(u).length === 0,
    (u, c) =>
      pipe(
        codec.validate(u, c) as t.Validation<t.TypeOf<C>>,
        E.chain((value) => {
          const broken = rules(value)
          return broken.length === 0
            ? E.right(value)
            : E.left(
                broken.map((v) => ({
                  value: v.actual,
                  // an empty key first: the rule's path starts below the value, whatever its codec is
                  context: [...c, { key: '', type: t.unknown, actual: value }, ...v.path.map((key) => ({ key, type: t.unknown, actual: v.actual }))],
                  message: v.message === undefined ? v.expected : `${wholeMessage}${v.message}`
                }))
              )
        })
      ),
    codec.encode,
    codec,
    (value) => rules(value).length === 0
  )

/**
 * Decodes `input` with `codec`; failures become a {@link DecodeError} naming every bad field.
 *
 * @category constructors
 * @since 0.1.0
 */
export const decode =
  <A, O>(subject: string, codec: t.Type<A, O, unknown>) =>
  (input: unknown): E.Either<DecodeError, A> =>
    pipe(
      codec.decode(input),
      E.mapLeft((errors) => ({ _tag: 'DecodeError' as const, subject, issues: issuesOf(errors) }))
    )

/**
 * Rejects fields the codec does not know, naming them: a typo in a recipe is an error, not a
 * silently ignored setting. Works on `t.type`, `t.partial`, `t.intersection`, `t.exact`,
 * `t.readonly`, recursively through arrays and records of those.
 *
 * @category combinators
 * @since 0.1.0
 */
export const decodeStrict =
  <A, O>(subject: string, codec: t.Type<A, O, unknown>) =>
  (input: unknown): E.Either<DecodeError, A> =>
    pipe(
      decode(subject, codec)(input),
      E.chain((value) => {
        const unknown = unknownFields(codec, input, '')
        return unknown.length === 0
          ? E.right(value)
          : E.left({
              _tag: 'DecodeError' as const,
              subject,
              issues: unknown.map(({ path, known }) => {
                const near = nearest(path.slice(path.lastIndexOf('.') + 1), known)
                return { path, expected: 'no such field', actual: 'a value', message: `unknown field${near === undefined ? '' : ` (did you mean "${near}"?)`}` }
              })
            })
      })
    )

/**
 * Option overrides decoded over defaults: every field of `Options` optional, unknown fields
 * refused ({@link decodeStrict}), an omitted (or undefined) field the default's. What a registry
 * entry's `configure` does with a configuration's `options` (estimators, policy losses).
 *
 * @example
 * import { Decode } from '@mtrl/core'
 * import * as t from 'io-ts'
 * Decode.withDefaults('gae options', t.type({ gamma: t.number, lambda: t.number }), { gamma: 1, lambda: 1 })({ lambda: 0.95 })
 * // Right({ gamma: 1, lambda: 0.95 })
 *
 * @category combinators
 * @since 0.7.0
 */
export const withDefaults =
  <P extends t.Props>(subject: string, Options: t.TypeC<P>, defaults: t.TypeOf<t.TypeC<P>>) =>
  (overrides: unknown): E.Either<DecodeError, t.TypeOf<t.TypeC<P>>> =>
    pipe(
      decodeStrict(subject, t.partial(Options.props))(overrides ?? {}),
      E.map((partial) => ({ ...defaults, ...Object.fromEntries(Object.entries(partial as Record<string, unknown>).filter(([, v]) => v !== undefined)) }))
    )

type AnyCodec = t.Mixed & {
  readonly _tag?: string
  readonly props?: t.Props
  readonly types?: ReadonlyArray<t.Mixed>
  readonly type?: t.Mixed
  readonly codomain?: t.Mixed
}

const knownProps = (codec: AnyCodec): t.Props | undefined => {
  switch (codec._tag) {
    case 'InterfaceType':
    case 'PartialType':
    case 'StrictType':
      return codec.props
    case 'IntersectionType': {
      const parts = (codec.types ?? []).map((c) => knownProps(c as AnyCodec))
      if (parts.some((p) => p === undefined)) return undefined
      return Object.assign({}, ...parts) as t.Props
    }
    case 'ReadonlyType':
    case 'RefinementType':
      return codec.type === undefined ? undefined : knownProps(codec.type as AnyCodec)
    default:
      return undefined
  }
}

/** Edit distance (insertions, deletions, substitutions, adjacent swaps). */
const distance = (a: string, b: string): number => {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1)
    }
  return d[a.length]![b.length]!
}

/**
 * The known name nearest to `name` (edit distance, case ignored), when it is near enough to be a
 * typo of it: for "did you mean" hints on fields, flags and commands.
 *
 * @example
 * import { Decode } from '@mtrl/core'
 * Decode.nearest('iteratons', ['iterations', 'episodes']) // 'iterations'
 *
 * @category destructors
 * @since 0.5.0
 */
export const nearest = (name: string, known: ReadonlyArray<string>): string | undefined => {
  const lower = name.toLowerCase()
  const scored = known.map((k) => ({ k, d: distance(lower, k.toLowerCase()) })).sort((a, b) => a.d - b.d || a.k.localeCompare(b.k))
  const best = scored[0]
  return best !== undefined && best.d <= Math.max(1, Math.floor(Math.max(name.length, best.k.length) / 3)) ? best.k : undefined
}

interface Unknown {
  readonly path: string
  /** The field names known where it was found. */
  readonly known: ReadonlyArray<string>
}

const unknownFields = (codec: AnyCodec, input: unknown, prefix: string): Unknown[] => {
  const join = (key: string): string => (prefix === '' ? key : `${prefix}.${key}`)
  switch (codec._tag) {
    case 'ReadonlyType':
    case 'RefinementType':
      return codec.type === undefined ? [] : unknownFields(codec.type as AnyCodec, input, prefix)
    case 'ArrayType':
    case 'ReadonlyArrayType':
      return Array.isArray(input) && codec.type !== undefined ? input.flatMap((item, i) => unknownFields(codec.type as AnyCodec, item, join(String(i)))) : []
    case 'DictionaryType':
      return typeof input === 'object' && input !== null && codec.codomain !== undefined
        ? Object.entries(input).flatMap(([k, v]) => unknownFields(codec.codomain as AnyCodec, v, join(k)))
        : []
    case 'UnionType': {
      const matching = (codec.types ?? []).find((c) => c.is(input) || E.isRight(c.decode(input)))
      return matching === undefined ? [] : unknownFields(matching as AnyCodec, input, prefix)
    }
    default: {
      const props = knownProps(codec)
      if (props === undefined || typeof input !== 'object' || input === null) return []
      return Object.entries(input).flatMap(([key, value]) =>
        key in props ? unknownFields(props[key] as AnyCodec, value, join(key)) : [{ path: join(key), known: Object.keys(props) }]
      )
    }
  }
}
