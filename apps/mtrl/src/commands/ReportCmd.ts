/**
 * `mtrl report RUN_DIR`: write the run's report.html (opens offline).
 */
import { Report, RunDir } from '@mtrl/experiment'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { make, required } from '../Command.js'

export const report = make({
  name: 'report',
  summary: 'write report.html (learning curves, evaluation table) for a run',
  help: `mtrl report RUN_DIR

Writes RUN_DIR/report.html: the evaluation table and learning curves (success rate, return,
KL, entropy, losses, tokens/s, SFT loss), drawn with Chart.js, inlined so it opens offline.

Example:
  mtrl report runs/default-20261130-101500Z`,
  flags: {},
  positionals: true,
  run: ({ positionals }) =>
    TE.fromEither(
      E.map((dir: string) => {
        const run = RunDir.open(dir)
        process.stdout.write(`${Report.write(run, `mtrl run ${run.path.split('/').pop() ?? ''}`)}\n`)
        return 0
      })(required(positionals[0], 'which run folder?'))
    )
})
