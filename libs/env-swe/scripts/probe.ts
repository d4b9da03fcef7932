// Prints which sandbox guards this machine supports and exits 1 if any isolation guard is
// missing (the in-sandbox `timeout` is backed by the host's kill and does not count). `.ci/run`
// runs it as root, where every guard must be available:
//   npm run -s probe -w @mtrl/env-swe
import * as Sandbox from '../src/Sandbox.js'

const p = Sandbox.probe()
console.log(Sandbox.describeProbe(p))
const missing = p.missing.filter((m) => m.guard !== 'timeout')
if (missing.length > 0) {
  console.log(`missing isolation guards: ${missing.map((m) => m.guard).join(', ')}`)
  process.exitCode = 1
}
