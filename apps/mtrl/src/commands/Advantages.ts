/**
 * `mtrl advantages`: the JSON front door of @mtrl/advantages, for debugging and for checking
 * numbers against other frameworks.
 */
import { Estimator, JsonEstimate } from '@mtrl/advantages'
import { Input } from '@mtrl/cli'
import * as E from 'fp-ts/lib/Either.js'
import { make, text, usage } from '../Command.js'

export const advantages = make({
  name: 'advantages',
  summary: 'compute advantages and returns from JSON (check against other frameworks)',
  help: `mtrl advantages --estimator NAME [--input FILE.json | -]

Estimators: ${Estimator.names.join(', ')}.
Input fields: tokenRewards and actionMask ([batch][time]), optional values, turnIndex,
groupIds, options (gamma, lambda, whiten for the GAE family; normalizeByStd, epsilon for GRPO;
omitted options take the defaults). Outcome estimators read each row's score as the sum of its
token rewards. Or {"trajectories": [...], "values"?, "bootstrapValues"?, "options"?}: episodes as the
rollout records them, through the trainer's own path (EpisodeRows: each turn's reward on its last
action token); then one output row per trajectory, aligned with its tokens.
Prints { "advantages": [[...]], "returns": [[...]] }.

Examples:
  mtrl advantages --estimator gae --input batch.json
  echo '{"tokenRewards":[[0,1]],"actionMask":[[1,1]],"options":{"whiten":false}}' | mtrl advantages --estimator gae`,
  flags: { estimator: text, input: text },
  run:
    ({ values: { estimator, input } }) =>
    async () => {
      if (estimator === undefined) return E.left(usage(`--estimator is required (one of ${Estimator.names.join(', ')})`))
      const json = await Input.readJson(input ?? '-')()
      if (E.isLeft(json)) return json
      const result = JsonEstimate.run(estimator)(json.right)
      if (E.isLeft(result)) return E.left(usage(result.left))
      process.stdout.write(`${JSON.stringify(result.right)}\n`)
      return E.right(0)
    }
})
