/**
 * `mtrl eval`: success rate (with a 95% confidence interval), mean turns, per task type, of a
 * run's final policy or of any checkpoint, on held-out seeds.
 */
import { Summary, Transcript } from '@mtrl/eval'
import { ChatPolicy, Episode } from '@mtrl/env-http'
import * as E from 'fp-ts/lib/Either.js'
import { existsSync, readdirSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { backendFlag, intFlag, numberFlag, parseFlags, UsageError, type Command } from '../Command.js'
import { envFlags, envFlagsHelp, envFromFlags } from '../EnvFlags.js'
import { readJson } from '../Input.js'
import * as Agent from '../pipeline/Agent.js'
import * as Progress from '../pipeline/Progress.js'
import * as RunDir from '../pipeline/RunDir.js'
import { evaluateAll, formatEval } from '../pipeline/Train.js'
import * as Recipe from '../recipe/Recipe.js'
import { source } from '../recipe/EnvConfig.js'
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

/** Evaluation of a remote model (OpenAI-compatible chat API) on held-out seeds. */
const evalRemote = async (values: Record<string, string | boolean | undefined | string[]>, positionals: ReadonlyArray<string>): Promise<number> => {
  const [envKind] = positionals
  if (envKind === undefined) throw new UsageError('which environment? (textworld, cooking, alfworld or swe)')
  if (typeof values['model'] !== 'string') throw new UsageError('--model NAME is required with --base-url')
  const h = source(envFromFlags(envKind, values as Record<string, string | boolean | undefined>))
  const episodes = intFlag('episodes', values['episodes'] as string | undefined, 100)
  const seedBase = intFlag('seed-base', values['seed-base'] as string | undefined, Recipe.defaults.eval.seedBase)
  const policy = ChatPolicy.make({
    baseUrl: values['base-url'] as string,
    model: values['model'],
    temperature: numberFlag('temperature', values['temperature'] as string | undefined, 0),
    concurrency: intFlag('concurrency', values['concurrency'] as string | undefined, 4)
  })
  const play = Episode.play({ maxTurns: h.maxTurns })(policy.agent)
  const results = await Promise.all(
    Array.from({ length: episodes }, async (_, i) => {
      const env = h.make()
      try {
        return await play(env, seedBase + i)()
      } finally {
        await env.close()()
      }
    })
  )
  h.dispose()
  const played = results.filter(E.isRight).map((r) => r.right)
  const summary = { model: values['model'], played: played.length, failed: results.length - played.length, results: [Summary.summarise(h.name, played.map(Episode.outcome))] }
  process.stdout.write(`${JSON.stringify(summary, null, values['json'] === true ? 2 : 0)}\n`)
  return summary.failed === 0 ? 0 : 1
}

export const evalCommand: Command = {
  name: 'eval',
  summary: 'evaluate a run or a checkpoint on held-out seeds',
  help: `mtrl eval --run DIR [--episodes N]
mtrl eval --checkpoint DIR ENV [settings] [--episodes 100] [--temperature 0] [--seed-base 3000000000]
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
        json: { type: 'boolean' },
        transcripts: { type: 'string' },
        'base-url': { type: 'string' },
        model: { type: 'string' },
        concurrency: { type: 'string' }
      },
      true
    )
    if (values['base-url'] !== undefined) return evalRemote(values, positionals)
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
    const agent = await Agent.pretrained({ kind, path: model })
    const handles = recipe.eval.envs.map(source)
    try {
      const lines: string[] = []
      const toText = Transcript.make(agent.tokenizer.decode)
      const results = await evaluateAll(agent, recipe, handles, values.transcripts === undefined ? undefined : (episode) => lines.push(JSON.stringify(toText(episode))))
      if (values.transcripts !== undefined) await writeFile(values.transcripts, lines.length === 0 ? '' : `${lines.join('\n')}\n`)
      if (values.json === true) process.stdout.write(`${JSON.stringify({ model, results }, null, 2)}\n`)
      else process.stdout.write(`${model}:\n${formatEval(results)}\n${results.map((r) => Object.entries(r.perTaskType).map(([t, v]) => `    ${t}: ${(100 * v.successRate).toFixed(1)}% of ${v.episodes}`).join('\n')).filter((s) => s !== '').join('\n')}\n`)
      return 0
    } finally {
      agent.dispose()
      handles.forEach((h) => h.dispose())
    }
  }
}
