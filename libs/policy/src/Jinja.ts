/**
 * Hugging Face chat templates rendered as Python `transformers` renders them
 * (`apply_chat_template`: Jinja2 under transformers' environment), with `@huggingface/jinja`
 * (the renderer transformers.js uses) and Python's semantics for none, floats, `string`, `trim`,
 * `tojson` and loops over strings (see `internal/pyJinja.ts` for each difference). It lives in
 * the policy so that the policy's rollout layout and serving's rendering of requests
 * (`ChatFormat.jinja`) read a folder's template through one renderer.
 *
 * @since 0.5.0
 */
import * as FloatJson from './internal/floatJson.js'
import * as PyJinja from './internal/pyJinja.js'

/**
 * A parsed template, to render many times; `unsupported`: why mtrl cannot render it as Python
 * would (it is then refused, never rendered differently).
 *
 * @category models
 * @since 0.5.0
 */
export type Compiled = PyJinja.Compiled

/**
 * Parses `source` as transformers does (trim_blocks, lstrip_blocks, line ends normalized to \n);
 * throws the parser's error.
 *
 * @example
 * import { Jinja } from '@mtrl/policy'
 * const t = Jinja.compile('{{ messages[0].content }}')
 *
 * @category constructors
 * @since 0.5.0
 */
export const compile: (source: string) => Compiled = PyJinja.compile

/**
 * Renders a compiled template with `variables` (JavaScript values; floats of JSON parsed by
 * {@link parseJson} stay floats). `now` is what `strftime_now` reads (the clock by default).
 * Throws the template's error (`raise_exception`).
 *
 * @example
 * import { Jinja } from '@mtrl/policy'
 * Jinja.render({ x: null })(Jinja.compile('{{ x }}')) // 'None'
 *
 * @category destructors
 * @since 0.5.0
 */
export const render: (variables: Readonly<Record<string, unknown>>, now?: () => Date) => (compiled: Compiled) => string = PyJinja.render

/**
 * `JSON.parse`, remembering which whole numbers were written as floats (`2.0`), which the
 * renderer then prints as Python does (`2.0`, not `2`).
 *
 * @example
 * import { Jinja } from '@mtrl/policy'
 * const v = Jinja.parseJson('{"x": 2.0}')
 *
 * @category constructors
 * @since 0.5.0
 */
export const parseJson: (text: string) => unknown = FloatJson.parse

/**
 * Whether the JSON `text` holds a whole-number float literal outside its strings (only then does
 * {@link parseJson} differ from `JSON.parse`).
 *
 * @category destructors
 * @since 0.5.0
 */
export const mayHoldFloats: (text: string) => boolean = FloatJson.mayHoldFloats
