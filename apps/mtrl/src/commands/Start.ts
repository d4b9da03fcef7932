/**
 * `mtrl start`: the main job that `npm start` runs.
 */
import type { Command } from '../Command.js'
import { info } from './Info.js'
import { smoke } from './Smoke.js'

export const start: Command = {
  name: 'start',
  summary: 'the main job (what npm start runs)',
  help: `mtrl start

Prints mtrl info, then runs a smoke training step on the wasm backend.`,
  run: async () => {
    const code = await info.run([])
    return code !== 0 ? code : smoke.run(['--backend', 'wasm', '--steps', '5'])
  }
}
