/**
 * The mtrl commands, one per file of this folder: what `mtrl --help` lists and `main` dispatches.
 */
import type { Command } from '@mtrl/cli'
import { ablate } from './Ablate.js'
import { advantages } from './Advantages.js'
import { collect } from './Collect.js'
import { evalCommand } from './Eval.js'
import { exportCommand } from './ExportCmd.js'
import { failures } from './Failures.js'
import { info } from './Info.js'
import { interval } from './Interval.js'
import { logprobs } from './LogprobsCmd.js'
import { report } from './ReportCmd.js'
import { results } from './Results.js'
import { serveEnv } from './ServeEnv.js'
import { servePolicy } from './ServePolicy.js'
import { playCommand } from './Play.js'
import { probe } from './Probe.js'
import { smoke } from './Smoke.js'
import { start } from './Start.js'
import { resume, sft, train } from './Train.js'
import { worker } from './Worker.js'

/** Every command, in the order `mtrl --help` lists them. */
export const commands: ReadonlyArray<Command.Command> = [
  start,
  train,
  sft,
  resume,
  evalCommand,
  failures,
  probe,
  ablate,
  results,
  interval,
  report,
  info,
  playCommand,
  serveEnv,
  servePolicy,
  worker,
  collect,
  advantages,
  logprobs,
  exportCommand,
  smoke
]
