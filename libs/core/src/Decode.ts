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
import type * as t from 'io-ts'

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

const pathOf = (context: t.Context): string => {
  const keys: string[] = []
  for (let i = 1; i < context.length; i++) {
    const parent = context[i - 1]?.type as { readonly _tag?: string } | undefined
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
  const all = errors.map((error): DecodeIssue => {
    const last = error.context[error.context.length - 1]
    return {
      path: pathOf(error.context),
      expected: error.message ?? last?.type.name ?? 'unknown',
      actual: shortJson(error.value)
    }
  })
  const seen = new Set<string>()
  return all.filter((issue) => {
    const key = `${issue.path}|${issue.expected}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
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
    (issue) => `  ${issue.path === '' ? '(root)' : issue.path}: expected ${issue.expected}, got ${issue.actual}`
  )
  return `invalid ${error.subject}:\n${lines.join('\n')}`
}

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
              issues: unknown.map((path) => ({ path, expected: 'no such field', actual: 'a value' }))
            })
      })
    )

type AnyCodec = t.Mixed & { readonly _tag?: string; readonly props?: t.Props; readonly types?: ReadonlyArray<t.Mixed>; readonly type?: t.Mixed; readonly codomain?: t.Mixed }

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

const unknownFields = (codec: AnyCodec, input: unknown, prefix: string): string[] => {
  const join = (key: string): string => (prefix === '' ? key : `${prefix}.${key}`)
  switch (codec._tag) {
    case 'ReadonlyType':
    case 'RefinementType':
      return codec.type === undefined ? [] : unknownFields(codec.type as AnyCodec, input, prefix)
    case 'ArrayType':
    case 'ReadonlyArrayType':
      return Array.isArray(input) && codec.type !== undefined
        ? input.flatMap((item, i) => unknownFields(codec.type as AnyCodec, item, join(String(i))))
        : []
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
        key in props ? unknownFields(props[key] as AnyCodec, value, join(key)) : [join(key)]
      )
    }
  }
}
