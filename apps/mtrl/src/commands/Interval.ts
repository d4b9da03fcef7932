/**
 * `mtrl interval`: a success rate over training seeds with its 95% interval inside [0, 100]
 * (@mtrl/eval's `OverSeeds`), from the seeds' rates as docs give them.
 */
import { OverSeeds } from '@mtrl/eval'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { int, make, usage } from '../Command.js'

export const interval = make({
  name: 'interval',
  summary: 'a success rate over seeds with its 95% interval (inside [0, 100]) from the seeds’ rates in %',
  help: `mtrl interval RATE... [--games 100]

The mean of the seeds' success rates (in %, each seed on the same --games held-out games) and
its 95% interval over seeds and games on the logit scale (inside [0, 100]; OverSeeds in
@mtrl/eval, docs/results.md "How figures are given"). One rate gives the interval over games
only, labelled "one seed".

Example:
  mtrl interval 91 75 91 --games 100     # 85.7% [...] (3 seeds)`,
  flags: { games: int(100) },
  positionals: true,
  run: ({ values, positionals }) => {
    const rates = positionals.map(Number)
    const bad = positionals.find((p, i) => p.trim() === '' || !(rates[i]! >= 0 && rates[i]! <= 100))
    if (positionals.length === 0) return TE.left(usage('give the seeds’ success rates in %, e.g. mtrl interval 91 75 91'))
    if (bad !== undefined) return TE.left(usage(`${JSON.stringify(bad)}: a success rate in % (0 to 100)`))
    if (values.games < 2) return TE.left(usage(`--games ${values.games}: at least 2`))
    process.stdout.write(`${OverSeeds.format(OverSeeds.interval(values.games)(rates.map((r) => r / 100)))}\n`)
    return TE.fromEither(E.right(0))
  }
})
