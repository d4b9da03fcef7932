// The node:test reporter of a sandboxed run (loaded by `--test-reporter`, after main.cjs has
// locked the realm down). For every top-level test it sends one signed line over main.cjs's
// channel, `{ kind: 'test', name, status: 'pass' | 'fail' | 'skip', message, output? }`, and when
// the run is over `{ kind: 'end', tests, output? }`. `output` is what the code printed during the
// test (or outside any test, on the end line), capped: text for the agent, never a result. It
// prints nothing: stdout belongs to the tests.
import { createRequire } from 'node:module'

const { send, output } = createRequire(import.meta.url)('./main.cjs').take()

/** The failure's message; anything the judged code threw, read defensively. */
const messageOf = (details) => {
  try {
    const error = details && details.error
    const cause = error && error.cause
    return String((cause && cause.message) || (error && error.message) || 'failed').slice(0, 500)
  } catch {
    return 'failed (the error could not be read)'
  }
}

export default async function* reporter(source) {
  let tests = 0
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue
    const d = event.data
    if (d.nesting !== 0) continue
    const status = d.skip || d.todo ? 'skip' : event.type === 'test:pass' ? 'pass' : 'fail'
    const name = String(d.name)
    const printed = output.take(name)
    send({ kind: 'test', name, status, message: status === 'fail' ? messageOf(d.details) : '', ...(printed === '' ? {} : { output: printed }) })
    tests++
  }
  const printed = output.rest()
  send({ kind: 'end', tests, ...(printed === '' ? {} : { output: printed }) })
  yield ''
}
