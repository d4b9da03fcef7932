/**
 * Mistral: `[TOOL_CALLS]` then the calls, either one JSON array `[{"name": ..., "arguments":
 * {...}}, ...]` (tokenizer v3, Mistral 7B v0.3, Small 3, Nemo) or, per call,
 * `name[ARGS]{...}` (tokenizer v11 and later: Magistral, Devstral, Small 3.2), optionally with
 * `[CALL_ID]id` before `[ARGS]`. The content is the text before `[TOOL_CALLS]`.
 */
import * as Format from './format.js'
import * as Partial from './partial.js'

const marker = '[TOOL_CALLS]'

/** The calls after one `[TOOL_CALLS]` marker, or `undefined` when they do not parse. */
const callsOf = (body: string): ReadonlyArray<Format.Call> | undefined => {
  const text = body.trim()
  if (text.startsWith('[') || text.startsWith('{')) {
    const json = Format.parseJson(text)
    const list = Array.isArray(json) ? json : [json]
    const calls = list.map((j) => Format.callOf(j, ['arguments', 'parameters']))
    return calls.length > 0 && calls.every((c): c is Format.Call => c !== undefined) ? calls : undefined
  }
  const named = /^([A-Za-z0-9_.-]+)(?:\[CALL_ID\][A-Za-z0-9]*)?\[ARGS\]([\s\S]*)$/.exec(text)
  if (named === null) return undefined
  const call = Format.callOf({ name: named[1], arguments: Format.parseJson(named[2]!.trim()) }, ['arguments'])
  return call === undefined ? undefined : [call]
}

const parse = (text: string): Format.Parsed => {
  const first = text.indexOf(marker)
  if (first < 0) return { content: text, calls: [] }
  const calls: Format.Call[] = []
  for (const body of text.slice(first + marker.length).split(marker)) {
    const some = callsOf(body)
    if (some === undefined) return { content: text, calls: [] }
    calls.push(...some)
  }
  return { content: text.slice(0, first).trimEnd(), calls }
}

export const mistral: Format.Format = {
  detect: (template) => template.includes(marker),
  parse,
  safePrefix: (text) => Format.beforeMarker(text, marker),
  // the first call of each [TOOL_CALLS] (later ones of a v3 array stream whole at the end)
  openCalls: (text) =>
    text
      .split(marker)
      .slice(1)
      .flatMap((body): Partial.OpenCall[] => {
        const named = /^\s*([A-Za-z0-9_.-]+)(?:\[CALL_ID\][A-Za-z0-9]*)?\[ARGS\]/.exec(body)
        if (named !== null) return [{ name: named[1]!, members: Partial.jsonMembers(body.slice(named[0].length)) }]
        const call = Partial.jsonCall(body.replace(/^\s*\[/, ''), ['arguments', 'parameters'])
        return call === undefined ? [] : [call]
      }),
  write: (calls) => `${marker}${JSON.stringify(calls.map((c) => ({ name: c.name, arguments: c.arguments })))}`
}
