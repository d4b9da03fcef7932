/**
 * `mtrl report RUN_DIR`: write the run's report.html (opens offline).
 */
import { parseFlags, UsageError, type Command } from '../Command.js'
import * as Report from '../pipeline/Report.js'
import * as RunDir from '../pipeline/RunDir.js'

export const report: Command = {
  name: 'report',
  summary: 'write report.html (learning curves, evaluation table) for a run',
  help: `mtrl report RUN_DIR

Writes RUN_DIR/report.html: the evaluation table and learning curves (success rate, return,
KL, entropy, losses, tokens/s, SFT loss), drawn with Chart.js, inlined so it opens offline.

Example:
  mtrl report runs/default-20261130-101500Z`,
  run: async (argv) => {
    const { positionals } = parseFlags(argv, {}, true)
    const dir = positionals[0]
    if (dir === undefined) throw new UsageError('which run folder?')
    const run = RunDir.open(dir)
    const path = Report.write(run, `mtrl run ${run.path.split('/').pop() ?? ''}`)
    process.stdout.write(`${path}\n`)
    return 0
  }
}
