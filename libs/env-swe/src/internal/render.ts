import type * as Suite from '../Suite.js'

/** Cuts text to `max` characters with a clear marker saying how much was dropped. */
export const truncate = (max: number) => (text: string): string =>
  text.length <= max ? text : `${text.slice(0, max)}\n[output truncated: ${text.length - max} more characters not shown]`

const firstLine = (s: string): string => s.split('\n').find((l) => l.trim() !== '')?.trim() ?? ''

/** The head and tail of a crash's stderr: the error is at the top, the call site at the bottom. */
const excerpt = (stderr: string): string => {
  const lines = stderr.trim().split('\n')
  return lines.length <= 14 ? lines.join('\n') : [...lines.slice(0, 7), `[... ${lines.length - 14} lines ...]`, ...lines.slice(-7)].join('\n')
}

/** The text of a `run_tests` observation. */
export const suiteReport = (result: Suite.SuiteResult, expected: ReadonlyArray<string>, filtered: boolean): string => {
  const lines: string[] = []
  const seen = new Set<string>()
  for (const o of result.outcomes) {
    const name = `${o.file} > ${o.name}`
    if (!expected.includes(name) || seen.has(name)) continue
    seen.add(name)
    lines.push(o.passed ? `PASS ${name}` : `FAIL ${name}: ${firstLine(o.message)}`)
  }
  const passed = lines.filter((l) => l.startsWith('PASS')).length
  const notes: string[] = []
  for (const { file, result: r } of result.runs) {
    if (r.timedOut) notes.push(`[${file}: killed after the wall-clock limit]`)
    if (r.outputExceeded) notes.push(`[${file}: killed, output limit exceeded]`)
    if (!r.timedOut && !r.outputExceeded && r.exitCode !== 0 && !result.outcomes.some((o) => o.file === file && !o.passed)) {
      notes.push(`[${file}: exited with ${r.exitCode ?? r.signal}]\n${excerpt(r.stderr)}`)
    }
  }
  const total = filtered ? seen.size : expected.length
  const summary = filtered ? `${passed}/${total} selected tests passed` : `${passed}/${total} tests passed`
  return [...lines, ...notes, summary].join('\n')
}
