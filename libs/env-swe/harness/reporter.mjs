// The node:test reporter of a sandboxed run (loaded by `--test-reporter`, after main.cjs has
// locked the realm down). For every top-level test it sends one signed line over main.cjs's
// channel, `{ kind: 'test', name, status: 'pass' | 'fail' | 'skip', message }`, and when the
// run is over `{ kind: 'end', tests }`. It prints nothing: stdout belongs to the tests.
import { createRequire } from 'node:module'

const { send } = createRequire(import.meta.url)('./main.cjs').take()

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
    send({ kind: 'test', name: String(d.name), status, message: status === 'fail' ? messageOf(d.details) : '' })
    tests++
  }
  send({ kind: 'end', tests })
  yield ''
}
