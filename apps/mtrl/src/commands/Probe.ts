/**
 * `mtrl probe`: does a policy know a command where it is needed? The probability each checkpoint
 * gives the expert's command at the states where the expert writes a verb (`Probe` of @mtrl/recipe).
 */
import { Evaluate } from '@mtrl/eval'
import { Evaluation, Probe } from '@mtrl/recipe'
import * as E from 'fp-ts/lib/Either.js'
import { backendFlag, bool, failed, int, list, make, text, usage } from '../Command.js'
import { envFlags, envFlagsHelp, envFromFlags } from '../EnvFlags.js'
import { startBackend } from '../Runtime.js'

const flags = {
  ...backendFlag,
  ...envFlags,
  checkpoint: list,
  verb: text,
  episodes: int(100),
  split: text,
  'system-prompt': text,
  'max-turns': int(40),
  json: bool
}

export const probe = make({
  name: 'probe',
  summary: "a policy's probability of the expert's command where the expert writes a verb",
  help: `mtrl probe --checkpoint DIR [--checkpoint DIR ...] ENV [settings] --verb VERB [--episodes 100]
           [--split validation|test] [--system-prompt TEXT] [--max-turns 40] [--json] [--backend B]

The expert plays --episodes held-out games; in each, at the first state where its next command
starts with VERB (e.g. unlock), each checkpoint reads the context it would read in a rollout
(system prompt and action format, the expert's earlier commands and the answers) and is scored on
the expert's command: the mean probability of its first token and of the whole reply, and the
verbs it writes greedily there instead. A checkpoint inside a run uses the run's rollout settings;
another folder the defaults; --system-prompt sets it for every checkpoint (the shipped base and the
recipes from it: --system-prompt ""). Shows
where a skill is lost, e.g. between a base, its SFT prior and RL.

${envFlagsHelp}

Example:
  mtrl probe --checkpoint models/base --system-prompt "" --checkpoint runs/x/checkpoints/stage-0/end textworld --config w4-o6-q8 --verb unlock --split validation`,
  flags,
  positionals: true,
  run:
    ({ values, positionals }) =>
    async () => {
      const { checkpoint: checkpoints = [], verb, episodes, split = 'validation', 'max-turns': maxTurns } = values
      if (checkpoints.length === 0 || verb === undefined) return E.left(usage('--checkpoint DIR and --verb VERB are required'))
      if (!Evaluate.Split.is(split)) return E.left(usage(`--split ${split}: expected validation or test`))
      const env = envFromFlags(positionals[0], values)
      if (E.isLeft(env)) return env
      const backend = await startBackend(values.backend)()
      if (E.isLeft(backend)) return backend
      const results: Array<{ readonly checkpoint: string; readonly result: Probe.Result }> = []
      for (const checkpoint of checkpoints) {
        const target = Evaluation.ofCheckpoint(checkpoint, env.right, false, (text) => process.stderr.write(`${text}\n`))
        if (E.isLeft(target)) return E.left(usage(target.left))
        const { recipe } = target.right
        const prompt = values['system-prompt']
        const rollout = prompt === undefined ? recipe.rollout : { ...recipe.rollout, systemPrompt: prompt }
        const result = await Probe.run({ verb, episodes, split, maxTurns })({ ...target.right, recipe: { ...recipe, rollout } })()
        if (E.isLeft(result)) return E.left(failed(result.left.message))
        results.push({ checkpoint, result: result.right })
        if (values.json !== true) process.stdout.write(`${Probe.format(checkpoint, result.right)}\n`)
      }
      if (values.json === true) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`)
      return E.right(0)
    }
})
