/**
 * `mtrl report RUN_DIR`: write the run's report.html (opens offline).
 */
import { Report, RunDir } from '@mtrl/experiment'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { parseFlags, required, type Command } from '../Command.js'

export const report: Command = {
  name: 'report',
  summary: 'write report.html (learning curves, evaluation table) for a run',
  help: `mtrl report RUN_DIR

Writes RUN_DIR/report.html: the evaluation table and learning curves (success rate, return,
KL, entropy, losses, tokens/s, SFT loss), drawn with Chart.js, inlined so it opens offline.

Example:
  mtrl report runs/default-20261130-101500Z`,
  run: (argv) =>
    TE.fromEither(
      pipe(
        parseFlags(argv, {}, true),
        E.chain(({ positionals }) => required(positionals[0], 'which run folder?')),
        E.map((dir) => {
          const run = RunDir.open(dir)
          process.stdout.write(`${Report.write(run, `mtrl run ${run.path.split('/').pop() ?? ''}`)}\n`)
          return 0
        })
      )
    )
}
