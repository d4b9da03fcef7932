// Source text for the Compartment. SES refuses any text that looks like `import(` or an HTML
// comment (`<!--`, `-->`), because it does not parse: a real dynamic import would reach Node's
// loader. That check stays, on the final text, and stays the boundary. Before it, this rewrite
// removes the look-alikes that are not code, so that ordinary files load:
//
// - in string and template literals, `(`, `/`, `<` and `>` become `\x28`, `\x2f`, `\x3c`, `\x3e`
//   (the same string; a tagged template's `raw` text differs);
// - in comments, they become spaces;
// - `x-->y` in code becomes `x-- >y`.
//
// Only a string, template or comment that contains a look-alike is rewritten, so a file without
// one runs exactly as written. The scanner is small and may misjudge odd code (a regex after `)`),
// but it cannot open anything: whatever it changes only removes `(`, `/`, `<` or `>` next to
// `import` and `--`, and SES's check still runs on the result. A real `import(` is refused with a
// clear message (`dynamicImportError`).
'use strict'

const LOOKALIKE = /import\s*(?:\(|\/[/*])|<!--|-->/
const KEYWORDS_BEFORE_REGEX = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await'])
const HEX = { '(': '\\x28', '/': '\\x2f', '<': '\\x3c', '>': '\\x3e' }

/** A literal's text with the look-alike characters escaped (escape sequences kept as they are). */
const escapeLiteral = (text) => {
  if (!LOOKALIKE.test(text)) return text
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '\\') {
      out += c + (text[i + 1] ?? '')
      i++
    } else out += HEX[c] ?? c
  }
  return out
}

const blankComment = (text) => (LOOKALIKE.test(text) ? text.replace(/[(/<>]/g, ' ') : text)

/** Where a string literal opened at `i` ends (after its quote, or at the end of its line). */
const stringEnd = (src, i) => {
  const quote = src[i]
  let j = i + 1
  while (j < src.length && src[j] !== quote && src[j] !== '\n') j += src[j] === '\\' ? 2 : 1
  return Math.min(src.length, j + 1)
}

/** Where a template's text part that starts at `i` ends: at the closing backtick (after it) or at `${` (after it). */
const templateEnd = (src, i) => {
  let j = i
  while (j < src.length) {
    if (src[j] === '\\') j += 2
    else if (src[j] === '`') return { end: j + 1, open: false }
    else if (src[j] === '$' && src[j + 1] === '{') return { end: j + 2, open: true }
    else j++
  }
  return { end: src.length, open: false }
}

/** Where a regex literal opened at `i` ends (its flags included). */
const regexEnd = (src, i) => {
  let j = i + 1
  let inClass = false
  while (j < src.length && src[j] !== '\n') {
    const c = src[j]
    if (c === '\\') j++
    else if (c === '[') inClass = true
    else if (c === ']') inClass = false
    else if (c === '/' && !inClass) break
    j++
  }
  j++
  while (j < src.length && /[\w$]/.test(src[j])) j++
  return j
}

/** Whether a `/` after the token `last` starts a regex literal (a guess, as any scanner's). */
const regexAllowed = (last) => last === '' || KEYWORDS_BEFORE_REGEX.has(last) || (!/^[\w$\u0080-\uffff]/.test(last) && last !== ')' && last !== ']')

/** One scanning step in code at `i`: [text to emit, next index, last significant token]. */
const codeStep = (src, i, last, braces) => {
  const c = src[i]
  const d = src[i + 1]
  if (c === '/' && d === '/') {
    const end = src.indexOf('\n', i) === -1 ? src.length : src.indexOf('\n', i)
    return ['//' + blankComment(src.slice(i + 2, end)), end, last]
  }
  if (c === '/' && d === '*') {
    const close = src.indexOf('*/', i + 2)
    const end = close === -1 ? src.length : close
    return ['/*' + blankComment(src.slice(i + 2, end)) + src.slice(end, end + 2), Math.min(src.length, end + 2), last]
  }
  if (c === '"' || c === "'") {
    const end = stringEnd(src, i)
    return [escapeLiteral(src.slice(i, end)), end, 'literal']
  }
  if (c === '`' || (c === '}' && braces.at(-1) === 'template')) {
    if (c === '}') braces.pop()
    const { end, open } = templateEnd(src, i + 1)
    if (open) braces.push('template')
    return [escapeLiteral(src.slice(i, end)), end, open ? '(' : 'literal']
  }
  if (c === '/' && regexAllowed(last)) {
    const end = regexEnd(src, i)
    return [src.slice(i, end), end, 'literal']
  }
  if (c === '-' && d === '-' && src[i + 2] === '>') return ['-- ', i + 2, '-']
  const word = /^[\w$\u0080-\uffff]+/.exec(src.slice(i, i + 256))
  if (word !== null) return [word[0], i + word[0].length, word[0]]
  if (c === '{') braces.push('code')
  if (c === '}') braces.pop()
  return [c, i + 1, /\s/.test(c) ? last : c]
}

/** The source with the look-alikes outside code removed (unchanged when it has none). */
const rewrite = (src) => {
  if (!LOOKALIKE.test(src)) return src
  let out = ''
  let i = 0
  let last = ''
  const braces = []
  while (i < src.length) {
    const [text, next, token] = codeStep(src, i, last, braces)
    out += text
    i = next
    last = token
  }
  return out
}

/** SES's refusal of a real `import(`, as a message the agent can act on (other errors unchanged). */
const dynamicImportError = (e) => {
  const m = e && typeof e.message === 'string' ? /rejected at (.*):(\d+)\. \(SES_IMPORT_REJECTED\)/.exec(e.message) : null
  return m === null ? e : new SyntaxError(`${m[1]}:${m[2]}: dynamic import() is not available to the code under test; use require()`)
}

module.exports = { rewrite, dynamicImportError }
