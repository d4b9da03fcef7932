/**
 * `mtrl collect ENV`: record episodes as JSONL in the OpenAI chat format (one conversation per
 * line), from the environment's expert or from a model behind an OpenAI-compatible endpoint.
 * The file feeds an SFT stage (`"data": "file.jsonl"`).
 */
import { ChatLog, ChatPolicy, Expert, type Episode } from '@mtrl/env-http'
import type { Env } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { failed, intFlag, numberFlag, parseFlags, required, usage, type CliError, type Command } from '../Command.js'
import { envFlags, envFlagsHelp, envFromFlags, envSource } from '../EnvFlags.js'

const collectFlags = {
  out: { type: 'string' },
  episodes: { type: 'string' },
  'seed-base': { type: 'string' },
  policy: { type: 'string' },
  'base-url': { type: 'string' },
  model: { type: 'string' },
  temperature: { type: 'string' },
  'max-tokens': { type: 'string' },
  concurrency: { type: 'string' }
} as const

/** The agent that plays: a model behind an OpenAI-compatible endpoint (--base-url), or the environment's expert. */
const agentOf = (values: Readonly<Record<string, string | boolean | undefined>>, h: Env.EnvSource): E.Either<CliError, Episode.Agent<Env.Env>> => {
  const str = (k: string): string | undefined => (typeof values[k] === 'string' ? (values[k] as string) : undefined)
  const baseUrl = str('base-url')
  if (baseUrl !== undefined)
    return pipe(
      E.Do,
      E.apS('model', required(str('model'), '--model is required with --base-url')),
      E.apS('temperature', numberFlag('temperature', str('temperature'), 0)),
      E.apS('maxTokens', intFlag('max-tokens', str('max-tokens'), 256)),
      E.apS('concurrency', intFlag('concurrency', str('concurrency'), 4)),
      E.map((options) => ChatPolicy.make({ baseUrl, ...options }).agent)
    )
  const policy = str('policy')
  if (policy !== undefined && policy !== 'expert') return E.left(usage(`--policy: expected "expert" (or use --base-url), got "${policy}"`))
  const plan = h.expertPlan
  if (plan === undefined) return E.left(usage(`${h.name} has no expert: record with --base-url`))
  return E.right(Expert.fromEnv(async (env: Env.Env) => plan(env)[0] ?? 'look'))
}

export const collect: Command = {
  name: 'collect',
  summary: 'record expert or model episodes as OpenAI-chat JSONL (SFT data)',
  help: `mtrl collect ENV [settings] --out FILE.jsonl [--episodes 100] [--seed-base 0]
        [--policy expert | --base-url URL --model NAME [--temperature 0] [--max-tokens 256] [--concurrency 4]]

With --base-url, a model served with an OpenAI-compatible API (vLLM, SGLang, Ollama,
llama.cpp) plays; the API key is read from OPENAI_API_KEY. Otherwise the environment's expert
plays. Each line: {"messages": [...], "env", "seed", "won", ...}.

${envFlagsHelp}

Examples:
  mtrl collect textworld --config w2-o3-q4 --episodes 60 --out demos.jsonl
  mtrl collect alfworld --split train --base-url http://127.0.0.1:8000 --model qwen --out qwen.jsonl`,
  run: (argv) => async () => {
    const parsed = pipe(
      parseFlags(argv, { ...envFlags, ...collectFlags }, true),
      E.bindTo('flags'),
      E.bind('env', ({ flags }) => envFromFlags(flags.positionals[0], flags.values)),
      E.bind('out', ({ flags }) => required(flags.values.out, '--out FILE.jsonl is required')),
      E.bind('episodes', ({ flags }) => intFlag('episodes', flags.values.episodes, 100)),
      E.bind('seedBase', ({ flags }) => intFlag('seed-base', flags.values['seed-base'], 0)),
      E.bind('concurrency', ({ flags }) => intFlag('concurrency', flags.values.concurrency, 4))
    )
    if (E.isLeft(parsed)) return parsed
    const { flags, env, out, episodes, seedBase, concurrency } = parsed.right
    const h = envSource(env)
    const agent = agentOf(flags.values, h)
    if (E.isLeft(agent)) return agent
    const result = await ChatLog.collect({
      factory: h.make,
      seeds: Array.from({ length: episodes }, (_, i) => seedBase + i),
      agent: agent.right,
      path: out,
      concurrency,
      meta: { collectedBy: flags.values['base-url'] === undefined ? 'expert' : flags.values.model }
    })()
    h.dispose()
    if (E.isLeft(result)) return E.left(failed(JSON.stringify(result.left)))
    process.stdout.write(`${JSON.stringify(result.right)}\n`)
    return E.right(0)
  }
}
