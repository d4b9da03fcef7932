/**
 * `mtrl collect ENV`: record episodes as JSONL in the OpenAI chat format (one conversation per
 * line), from the environment's expert or from a model behind an OpenAI-compatible endpoint.
 * The file feeds an SFT stage (`"data": "file.jsonl"`).
 */
import { ChatLog, ChatPolicy, Expert, type Episode } from '@mtrl/env-http'
import type { Env } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { intFlag, numberFlag, parseFlags, UsageError, type Command } from '../Command.js'
import { envFlags, envFlagsHelp, envFromFlags } from '../EnvFlags.js'
import { source } from '../recipe/EnvConfig.js'

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
  run: async (argv) => {
    const { values, positionals } = parseFlags(
      argv,
      {
        ...envFlags,
        out: { type: 'string' },
        episodes: { type: 'string' },
        'seed-base': { type: 'string' },
        policy: { type: 'string' },
        'base-url': { type: 'string' },
        model: { type: 'string' },
        temperature: { type: 'string' },
        'max-tokens': { type: 'string' },
        concurrency: { type: 'string' }
      },
      true
    )
    const [kind] = positionals
    if (kind === undefined) throw new UsageError('which environment? (textworld, cooking, alfworld or swe)')
    if (values.out === undefined) throw new UsageError('--out FILE.jsonl is required')
    const h = source(envFromFlags(kind, values))
    const episodes = intFlag('episodes', values.episodes, 100)
    const seedBase = intFlag('seed-base', values['seed-base'], 0)
    let agent: Episode.Agent<Env.Env>
    if (values['base-url'] !== undefined) {
      if (values.model === undefined) throw new UsageError('--model is required with --base-url')
      agent = ChatPolicy.make({
        baseUrl: values['base-url'],
        model: values.model,
        temperature: numberFlag('temperature', values.temperature, 0),
        maxTokens: intFlag('max-tokens', values['max-tokens'], 256),
        concurrency: intFlag('concurrency', values.concurrency, 4)
      }).agent
    } else {
      if (values.policy !== undefined && values.policy !== 'expert') throw new UsageError(`--policy: expected "expert" (or use --base-url), got "${values.policy}"`)
      const plan = h.expertPlan
      if (plan === undefined) throw new UsageError(`${h.name} has no expert: record with --base-url`)
      agent = Expert.fromEnv(async (env: Env.Env) => plan(env)[0] ?? 'look')
    }
    const result = await ChatLog.collect({
      factory: h.make,
      seeds: Array.from({ length: episodes }, (_, i) => seedBase + i),
      agent,
      path: values.out,
      concurrency: intFlag('concurrency', values.concurrency, 4),
      meta: { collectedBy: values['base-url'] === undefined ? 'expert' : values.model }
    })()
    h.dispose()
    if (E.isLeft(result)) {
      process.stderr.write(`mtrl collect: ${JSON.stringify(result.left)}\n`)
      return 1
    }
    process.stdout.write(`${JSON.stringify(result.right)}\n`)
    return 0
  }
}
