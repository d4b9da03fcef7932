/**
 * `mtrl eval`: success rate (with a 95% confidence interval), mean turns, per task type, of a
 * run's final policy or of any checkpoint, on held-out seeds; or of a remote model.
 */
import { Evaluate, Summary } from '@mtrl/eval'
import { ChatPolicy, Episode } from '@mtrl/env-http'
import { RunDir } from '@mtrl/experiment'
import { EnvConfig, Evaluation, Recipe } from '@mtrl/recipe'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { writeFile } from 'node:fs/promises'
import { backendFlag, failed, intFlag, numberFlag, parseFlags, required, usage, type CliError, type Command } from '../Command.js'
import { envFlags, envFlagsHelp, envFromFlags, envSource } from '../EnvFlags.js'
import { readJson } from '../Input.js'
import { startBackend } from '../Runtime.js'

type Values = Readonly<Record<string, string | boolean | undefined>>
const str = (values: Values, k: string): string | undefined => (typeof values[k] === 'string' ? (values[k] as string) : undefined)

/** Evaluation of a remote model (OpenAI-compatible chat API) on held-out seeds: the same summary as a local evaluation. */
const evalRemote = async (values: Values, positionals: ReadonlyArray<string>): Promise<E.Either<CliError, number>> => {
  const parsed = pipe(
    E.Do,
    E.apS('env', envFromFlags(positionals[0], values)),
    E.apS('model', required(str(values, 'model'), '--model NAME is required with --base-url')),
    E.apS('episodes', intFlag('episodes', str(values, 'episodes'), Evaluate.defaultSettings.episodes)),
    E.apS('seedBase', intFlag('seed-base', str(values, 'seed-base'), Evaluate.defaultSettings.seedBase)),
    E.apS('temperature', numberFlag('temperature', str(values, 'temperature'), 0)),
    E.apS('concurrency', intFlag('concurrency', str(values, 'concurrency'), 4))
  )
  if (E.isLeft(parsed)) return parsed
  const { env, model, episodes, seedBase, temperature, concurrency } = parsed.right
  const h = envSource(env)
  const policy = ChatPolicy.make({ baseUrl: str(values, 'base-url')!, model, temperature, concurrency })
  const { played, failed } = await Episode.playSeeds({ maxTurns: h.maxTurns })(policy.agent)(h, Array.from({ length: episodes }, (_, i) => seedBase + i))()
  h.dispose()
  const summary = { model, played: played.length, failed: failed.length, results: [Summary.summarise(h.name, played.map(Episode.outcome))] }
  process.stdout.write(`${JSON.stringify(summary, null, values['json'] === true ? 2 : 0)}\n`)
  return E.right(summary.failed === 0 ? 0 : 1)
}

/** What to evaluate: a run's final policy on its own evaluation, or a checkpoint on the environment of the flags. */
const target = async (values: Values, positionals: ReadonlyArray<string>): Promise<E.Either<CliError, Evaluation.Target>> => {
  const runDir = str(values, 'run')
  const checkpoint = str(values, 'checkpoint')
  if (runDir !== undefined) {
    const run = RunDir.open(runDir)
    const json = await readJson(run.file('recipe.json'))()
    return E.chain((recipe: unknown) => E.mapLeft(usage)(Evaluation.ofRun(run)(recipe)))(json)
  }
  if (checkpoint === undefined) return E.left(usage('give --run DIR or --checkpoint DIR'))
  return E.map((env: EnvConfig.EnvConfig) => Evaluation.ofFolder(checkpoint, values['hf'] === true ? 'hf' : 'checkpoint', env))(envFromFlags(positionals[0], values))
}

/** `--seed-base N` (any first seed) or `--split validation|test`; neither: the recipe's own. */
const seedsFlags = (values: Values, current: Evaluate.Resolved): E.Either<CliError, Pick<Evaluate.Resolved, 'split' | 'seedBase'>> => {
  const split = str(values, 'split')
  if (split !== undefined && !Evaluate.Split.is(split)) return E.left(usage(`--split ${split}: expected validation or test`))
  if (str(values, 'seed-base') === undefined) return E.right(split === undefined ? current : Evaluate.resolve({ split }))
  return E.map((seedBase: number) => Evaluate.resolve({ seedBase }))(intFlag('seed-base', str(values, 'seed-base'), current.seedBase))
}

/** The recipe's evaluation with the flags' overrides (`--split` or `--seed-base` choose the held-out seeds). */
const withFlags = (recipe: Recipe.Resolved, values: Values): E.Either<CliError, Recipe.Resolved> =>
  pipe(
    E.Do,
    E.apS('episodes', intFlag('episodes', str(values, 'episodes'), recipe.eval.episodes)),
    E.apS('temperature', numberFlag('temperature', str(values, 'temperature'), recipe.eval.temperature)),
    E.apS('seeds', seedsFlags(values, recipe.eval)),
    E.map(({ seeds, ...overrides }) => ({ ...recipe, eval: { ...recipe.eval, ...overrides, ...seeds } }))
  )

/** Evaluation of a local model (a run's, a checkpoint, a Hugging Face folder). */
const evalLocal = async (values: Values, positionals: ReadonlyArray<string>): Promise<E.Either<CliError, number>> => {
  const chosen = await target(values, positionals)
  const planned = E.chain((t: Evaluation.Target) => E.map((recipe: Recipe.Resolved) => ({ ...t, recipe }))(withFlags(t.recipe, values)))(chosen)
  if (E.isLeft(planned)) return planned
  const backend = await startBackend(str(values, 'backend'))()
  if (E.isLeft(backend)) return backend
  const transcripts = str(values, 'transcripts')
  const lines: string[] = []
  const note = (text: string) => void process.stderr.write(`${text}\n`)
  const results = await Evaluation.run({ note, ...(transcripts === undefined ? {} : { onTranscript: (t) => lines.push(JSON.stringify(t)) }) })(planned.right)()
  if (E.isLeft(results)) return E.left(failed(results.left.message))
  if (transcripts !== undefined) await writeFile(transcripts, lines.length === 0 ? '' : `${lines.join('\n')}\n`)
  const { path } = planned.right.model
  if (values['json'] === true) process.stdout.write(`${JSON.stringify({ model: path, results: results.right }, null, 2)}\n`)
  else process.stdout.write(`${path}:\n${Summary.format(results.right)}\n${Summary.formatTaskTypes(results.right)}\n`)
  return E.right(0)
}

export const evalCommand: Command = {
  name: 'eval',
  summary: 'evaluate a run or a checkpoint on held-out seeds',
  help: `mtrl eval --run DIR [--episodes N]
mtrl eval --checkpoint DIR ENV [settings] [--episodes 100] [--temperature 0] [--split test|validation | --seed-base N]
          [--transcripts FILE]
mtrl eval --base-url URL --model NAME ENV [settings] [--episodes 100] [--concurrency 4]

With --run, the run's final policy on the run's evaluation environments and seeds (so it
reproduces the run's last evaluation). With --checkpoint, any mtrl checkpoint (or Hugging
Face folder with --hf) on the environment given by ENV and its flags. With --base-url, a model
served with an OpenAI-compatible API (vLLM, SGLang, Ollama, llama.cpp; key from
OPENAI_API_KEY) plays through chat messages. Writes JSON with --json. --transcripts FILE
writes every episode (prompt, actions, observations, rewards) as JSON lines, to see how the
policy fails.

${envFlagsHelp}

Examples:
  mtrl eval --run runs/default-20261130-101500Z
  mtrl eval --checkpoint runs/default-20261130-101500Z/checkpoints/stage-1/end textworld --config w4-o6-q8 --episodes 200
  mtrl eval --run runs/default-20261130-101500Z --transcripts failures.jsonl`,
  run: (argv) => async () => {
    const flags = parseFlags(
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
        split: { type: 'string' },
        json: { type: 'boolean' },
        transcripts: { type: 'string' },
        'base-url': { type: 'string' },
        model: { type: 'string' },
        concurrency: { type: 'string' }
      },
      true
    )
    if (E.isLeft(flags)) return flags
    const { values, positionals } = flags.right
    return values['base-url'] !== undefined ? evalRemote(values, positionals) : evalLocal(values, positionals)
  }
}
