/**
 * `mtrl eval`: success rate (with a 95% confidence interval), mean turns, per task type, of a
 * run's final policy or of any checkpoint, on held-out seeds.
 */
import * as E from 'fp-ts/lib/Either.js'
import { existsSync, readdirSync } from 'node:fs'
import { backendFlag, intFlag, numberFlag, parseFlags, UsageError, type Command } from '../Command.js'
import { envFlags, envFlagsHelp, envFromFlags } from '../EnvFlags.js'
import { readJson } from '../Input.js'
import * as Agent from '../pipeline/Agent.js'
import * as Progress from '../pipeline/Progress.js'
import * as RunDir from '../pipeline/RunDir.js'
import { evaluateAll, formatEval } from '../pipeline/Train.js'
import * as Recipe from '../recipe/Recipe.js'
import { handle } from '../recipe/EnvConfig.js'
import { startBackend } from '../Runtime.js'

/** The last finished stage's checkpoint of a run. */
const finalCheckpoint = (run: RunDir.RunDir): string => {
  const dir = run.file('checkpoints')
  const stages = existsSync(dir)
    ? readdirSync(dir)
        .map((n) => /^stage-(\d+)$/.exec(n)?.[1])
        .filter((n): n is string => n !== undefined)
        .map(Number)
        .filter((i) => existsSync(Progress.stageEnd(run, i)))
        .sort((a, b) => a - b)
    : []
  const last = stages[stages.length - 1]
  if (last === undefined) throw new UsageError(`${run.path} has no finished stage to evaluate`)
  return Progress.stageEnd(run, last)
}

export const evalCommand: Command = {
  name: 'eval',
  summary: 'evaluate a run or a checkpoint on held-out seeds',
  help: `mtrl eval --run DIR [--episodes N]
mtrl eval --checkpoint DIR ENV [settings] [--episodes 100] [--temperature 0] [--seed-base 3000000000]

With --run, the run's final policy on the run's evaluation environments and seeds (so it
reproduces the run's last evaluation). With --checkpoint, any mtrl checkpoint (or Hugging
Face folder with --hf) on the environment given by ENV and its flags. Writes JSON with --json.

${envFlagsHelp}

Examples:
  mtrl eval --run runs/default-20261130-101500Z
  mtrl eval --checkpoint runs/default-20261130-101500Z/checkpoints/stage-1/end textworld --config w4-o6-q8 --episodes 200`,
  run: async (argv) => {
    const { values, positionals } = parseFlags(
      argv,
      {
        ...backendFlag,
        ...envFlags,
        run: { type: 'string' },
        checkpoint: { type: 'string' },
        hf: { type: 'boolean' },
        episodes: { type: 'string' },
        temperature: { type: 'string' },
        'seed-base': { type: 'string' },
        json: { type: 'boolean' }
      },
      true
    )
    let recipe: Recipe.Resolved
    let model: string
    let kind: 'checkpoint' | 'hf' = 'checkpoint'
    if (values.run !== undefined) {
      const run = RunDir.open(values.run)
      const decoded = Recipe.decode(await readJson(run.file('recipe.json')))
      if (E.isLeft(decoded)) throw new UsageError(`${run.file('recipe.json')}: ${decoded.left}`)
      recipe = decoded.right
      model = finalCheckpoint(run)
    } else if (values.checkpoint !== undefined) {
      const [envKind] = positionals
      if (envKind === undefined) throw new UsageError('which environment? (textworld, cooking, alfworld or swe)')
      const env = envFromFlags(envKind, values)
      recipe = Recipe.resolve({ name: 'eval', stages: [], eval: { envs: [env] } })
      model = values.checkpoint
      kind = values.hf === true ? 'hf' : 'checkpoint'
    } else throw new UsageError('give --run DIR or --checkpoint DIR')
    recipe = {
      ...recipe,
      eval: {
        ...recipe.eval,
        episodes: intFlag('episodes', values.episodes, recipe.eval.episodes),
        temperature: numberFlag('temperature', values.temperature, recipe.eval.temperature),
        seedBase: intFlag('seed-base', values['seed-base'], recipe.eval.seedBase)
      }
    }
    await startBackend(values.backend)
    const agent = await Agent.pretrained({ kind, path: model }, false, recipe.seed)
    const handles = recipe.eval.envs.map(handle)
    try {
      const results = await evaluateAll(agent, recipe, handles)
      if (values.json === true) process.stdout.write(`${JSON.stringify({ model, results }, null, 2)}\n`)
      else process.stdout.write(`${model}:\n${formatEval(results)}\n${results.map((r) => Object.entries(r.perTaskType).map(([t, v]) => `    ${t}: ${(100 * v.successRate).toFixed(1)}% of ${v.episodes}`).join('\n')).filter((s) => s !== '').join('\n')}\n`)
      return 0
    } finally {
      agent.dispose()
      handles.forEach((h) => h.dispose())
    }
  }
}
