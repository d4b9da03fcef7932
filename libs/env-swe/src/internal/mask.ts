/**
 * Blanks out string literals and comments of JavaScript source (same length, newlines kept),
 * so that operator sites can be found with regular expressions and their offsets still point
 * into the original text. Quote characters themselves are kept. Template literals and regular
 * expression literals are not understood: the corpus avoids them (a corpus test checks this).
 */
export const maskSource = (source: string): string => {
  const out: string[] = []
  let state: 'code' | 'single' | 'double' | 'line' | 'block' = 'code'
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!
    const next = source[i + 1]
    switch (state) {
      case 'code':
        if (ch === "'" || ch === '"') {
          state = ch === "'" ? 'single' : 'double'
          out.push(ch)
        } else if (ch === '/' && next === '/') {
          state = 'line'
          out.push(' ')
        } else if (ch === '/' && next === '*') {
          state = 'block'
          out.push(' ')
        } else out.push(ch)
        break
      case 'single':
      case 'double':
        if (ch === '\\') {
          out.push(' ', next === '\n' ? '\n' : ' ')
          i++
        } else if ((ch === "'" && state === 'single') || (ch === '"' && state === 'double')) {
          state = 'code'
          out.push(ch)
        } else out.push(ch === '\n' ? '\n' : ' ')
        break
      case 'line':
        if (ch === '\n') {
          state = 'code'
          out.push('\n')
        } else out.push(' ')
        break
      case 'block':
        if (ch === '*' && next === '/') {
          state = 'code'
          out.push(' ', ' ')
          i++
        } else out.push(ch === '\n' ? '\n' : ' ')
        break
    }
  }
  return out.join('')
}
