/**
 * Constrained decoding: a request's grammar (any JSON object, a JSON Schema, forced tool calls)
 * compiled for the model's vocabulary, and one matcher per sequence that gives the engine the
 * next token's mask at every decode step and follows the tokens drawn. The grammar engine is
 * xgrammar (vLLM's, SGLang's and TensorRT-LLM's), in WebAssembly from `@mlc-ai/web-xgrammar`:
 * its JSON Schema support (`$ref`, `anyOf`, enums, patterns, lengths) and structural tags are
 * those of the Python servers.
 *
 * JSON is generated compact (`{"a": 1, "b": [2, 3]}`: `", "` and `": "` separators, no free
 * white space), so a model cannot pad a reply with endless white space.
 *
 * @since 0.2.0
 */
import type { Tokenizer } from '@mtrl/core'
import type * as Xg from '@mlc-ai/web-xgrammar'
import * as E from 'fp-ts/lib/Either.js'
import type { TaskEither } from 'fp-ts/lib/TaskEither.js'
import * as ToolGrammar from './internal/toolGrammar.js'
import * as Vocabulary from './internal/vocabulary.js'
import * as Xgrammar from './internal/xgrammar.js'
import type * as ToolCalls from './ToolCalls.js'

/**
 * What a reply must be:
 * - `JsonObject`: any JSON object (`response_format: {"type": "json_object"}`);
 * - `JsonSchema`: a value of `schema`; `strict` also forbids properties the schema does not name;
 * - `ToolCalls`: only calls, in `syntax`, of `functions` (all for `tool_choice: "required"`, one
 *   for a named choice), each call's arguments valid against its function's schema; one call, or
 *   one or more when `parallel`; with `otherwise`, the reply may instead be a value of that schema.
 *
 * @category models
 * @since 0.2.0
 */
export type Spec =
  | { readonly _tag: 'JsonObject' }
  | { readonly _tag: 'JsonSchema'; readonly schema: Readonly<Record<string, unknown>>; readonly strict: boolean }
  | {
      readonly _tag: 'ToolCalls'
      readonly syntax: ToolCalls.Syntax
      readonly functions: ReadonlyArray<ToolGrammar.Callable>
      readonly parallel: boolean
      /** A JSON Schema the reply may be a value of instead of calls (tools offered and an output type asked for). */
      readonly otherwise?: Readonly<Record<string, unknown>>
    }

/**
 * One sequence's place in its grammar: `mask()` is the next token's bitmask (bit `id % 32` of
 * word `id >> 5` set: the token is allowed), `accept(id)` moves past a drawn token (false: the
 * grammar refuses it), `dispose` frees it.
 *
 * @category models
 * @since 0.2.0
 */
export interface Matcher {
  readonly mask: () => Promise<Int32Array>
  readonly accept: (token: number) => boolean
  readonly dispose: () => void
}

/**
 * A grammar compiled for the model's vocabulary; each sequence gets its own `matcher()`.
 *
 * @category models
 * @since 0.2.0
 */
export interface Compiled {
  readonly matcher: () => Promise<Matcher>
}

/**
 * A model's grammars: `compile` (cached by spec: a schema sent again is not compiled again) and
 * `dispose`.
 *
 * @category models
 * @since 0.2.0
 */
export interface Grammars {
  readonly compile: (spec: Spec) => TaskEither<string, Compiled>
  readonly dispose: () => void
}

/** Compiled grammars kept per model (the least recently used goes first). */
const cacheSize = 64

const compileWith = (compiler: Xg.GrammarCompiler, spec: Spec): Promise<Xg.CompiledGrammar> => {
  switch (spec._tag) {
    case 'JsonObject':
      return compiler.compileJSONSchema('{"type": "object"}', false, -1, undefined, false)
    case 'JsonSchema':
      return compiler.compileJSONSchema(JSON.stringify(spec.schema), false, -1, undefined, spec.strict)
    case 'ToolCalls': {
      const tag = ToolGrammar.structuralTag(spec.syntax, spec.functions, spec.parallel, spec.otherwise)
      return E.isLeft(tag) ? Promise.reject(new Error(tag.left)) : compiler.compileStructuralTag(tag.right)
    }
  }
}

/**
 * The masks that correct xgrammar 0.1.27's leniency (each a bitmask of the tokens kept):
 * `everywhere` drops single-byte tokens that no valid UTF-8 holds (it reads bytes leniently);
 * `json` also drops tokens with control characters (U+0000 to U+001F), which compact JSON never
 * holds raw but which it lets into strings with a `maxLength` or `minLength`. Stop tokens stay.
 */
const correctionsOf = (
  tokenizer: Tokenizer.Tokenizer,
  vocabulary: Vocabulary.Vocabulary,
  stopTokens: ReadonlyArray<number>
): { readonly everywhere: Int32Array; readonly json: Int32Array } => {
  const words = Math.ceil(tokenizer.vocabSize / 32)
  const everywhere = new Int32Array(words).fill(-1)
  for (const id of Vocabulary.invalidUtf8(vocabulary)) everywhere[id >> 5] = everywhere[id >> 5]! & ~(1 << (id & 31))
  const json = Int32Array.from(everywhere)
  for (let id = 0; id < tokenizer.vocabSize; id++)
    if (!stopTokens.includes(id) && /[\u0000-\u001f]/.test(tokenizer.decode([id]))) json[id >> 5] = json[id >> 5]! & ~(1 << (id & 31))
  return { everywhere, json }
}

const matcherOf = async (
  xg: Xgrammar.Xgrammar,
  compiled: Xg.CompiledGrammar,
  stopTokens: ReadonlyArray<number>,
  also: Int32Array | undefined
): Promise<Matcher> => {
  const m = await xg.GrammarMatcher.createGrammarMatcher(compiled, [...stopTokens])
  const mask = async (): Promise<Int32Array> => {
    const bits = await m.getNextTokenBitmask()
    if (also !== undefined) for (let i = 0; i < bits.length; i++) bits[i] = bits[i]! & also[i]!
    return bits
  }
  return { mask, accept: (token) => m.acceptToken(token), dispose: () => m.dispose() }
}

/**
 * The grammars of a model with `tokenizer`, whose replies end with one of `stopTokens` (the
 * grammar allows them only where the reply may end). Nothing is loaded until the first
 * `compile`.
 *
 * @example
 * import { Grammar } from '@mtrl/serving'
 * declare const tokenizer: import('@mtrl/core').Tokenizer.Tokenizer
 * const grammars = Grammar.make(tokenizer, [tokenizer.special.eos])
 * const compiled = await grammars.compile({ _tag: 'JsonObject' })()
 *
 * @category constructors
 * @since 0.2.0
 */
export const make = (tokenizer: Tokenizer.Tokenizer, stopTokens: ReadonlyArray<number>): Grammars => {
  let compiler: Promise<Xg.GrammarCompiler> | undefined
  let corrections: { readonly everywhere: Int32Array; readonly json: Int32Array } | undefined
  const cache = new Map<string, Promise<Xg.CompiledGrammar>>()
  const compilerOf = (xg: Xgrammar.Xgrammar): Promise<Xg.GrammarCompiler> =>
    (compiler ??= (async () => {
      const vocabulary = Vocabulary.of(tokenizer)
      const info = await xg.TokenizerInfo.createTokenizerInfo([...vocabulary.encoded], vocabulary.type, false, tokenizer.vocabSize, [...stopTokens])
      return xg.GrammarCompiler.createGrammarCompiler(info, false)
    })())
  const compile =
    (spec: Spec): TaskEither<string, Compiled> =>
    async () => {
      const key = JSON.stringify(spec)
      try {
        const xg = Xgrammar.load()
        let compiled = cache.get(key)
        if (compiled === undefined) {
          compiled = compilerOf(xg).then((c) => compileWith(c, spec))
          compiled.catch(() => cache.delete(key))
          cache.set(key, compiled)
          if (cache.size > cacheSize) {
            const [oldest, value] = cache.entries().next().value as [string, Promise<Xg.CompiledGrammar>]
            cache.delete(oldest)
            void value.then((g) => g.dispose()).catch(() => undefined)
          }
        } else {
          cache.delete(key)
          cache.set(key, compiled) // most recently used last
        }
        const grammar = await compiled
        corrections ??= correctionsOf(tokenizer, Vocabulary.of(tokenizer), stopTokens)
        const also = spec._tag === 'ToolCalls' ? corrections.everywhere : corrections.json
        return E.right({ matcher: () => matcherOf(xg, grammar, stopTokens, also) })
      } catch (error) {
        return E.left(`the grammar cannot be compiled: ${error instanceof Error ? error.message : String(error)}`)
      }
    }
  return {
    compile,
    dispose: () => {
      for (const g of cache.values()) void g.then((x) => x.dispose()).catch(() => undefined)
      cache.clear()
    }
  }
}

/**
 * Whether `mask` allows token `id`.
 *
 * @category destructors
 * @since 0.2.0
 */
export const allows = (mask: Int32Array, id: number): boolean => ((mask[id >> 5]! >>> (id & 31)) & 1) === 1
