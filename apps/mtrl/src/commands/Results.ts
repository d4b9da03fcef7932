/**
 * `mtrl results`: the test-seed ledger, one line per look (@mtrl/experiment's `Ledger` and
 * `TestLooks`).
 */
import { Ledger, TestLooks } from '@mtrl/experiment'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { bool, failed, make, text } from '../Command.js'

export const results = make({
  name: 'results',
  summary: 'list the test-seed ledger: every look at the test split, with its recipe version, seed and checkpoint',
  help: `mtrl results [--recipe NAME] [--json]

Lists the test-seed ledger (results/test-looks.jsonl, or the file MTRL_LEDGER names): every
evaluation on test seeds that a run (mtrl start, train, ablate) or mtrl eval made, oldest first,
with its date, commit, recipe name and version (a hash of the resolved recipe without its seed),
training seed, look number (the n-th look at that recipe version and seed: a figure reported as
a first look has look 1), phase, checkpoint hash, environment, games and success rate.
--recipe NAME keeps one recipe's looks; --json prints the entries as JSON lines.

Example:
  mtrl results --recipe default`,
  flags: { recipe: text, json: bool },
  run: ({ values }) =>
    TE.fromEither(
      E.bimap(
        (e: string) => failed(e),
        (looks: ReadonlyArray<TestLooks.Look>) => {
          const kept = values.recipe === undefined ? looks : looks.filter((l) => l.recipe === values.recipe)
          if (values.json === true) process.stdout.write(kept.map((l) => `${JSON.stringify(l)}\n`).join(''))
          else process.stdout.write(`${kept.length === 0 ? `no test looks in ${Ledger.path()}` : TestLooks.format(kept)}\n`)
          return 0
        }
      )(Ledger.read(Ledger.path()))
    )
})
