/**
 * `mtrl collect ENV`: record episodes as JSONL in the OpenAI chat format (one conversation per
 * line), from the environment's expert or from a model behind an OpenAI-compatible endpoint.
 * The file feeds an SFT stage (`"data": "file.jsonl"`).
 */
import { ChatLog } from '@mtrl/env-http'
import * as E from 'fp-ts/lib/Either.js'
import { failed, float, int, make, required, text, usage } from '../Command.js'
import { envFlags, envFlagsHelp, openEnv } from '../EnvFlags.js'

const flags = {
  ...envFlags,
  out: text,
  episodes: int(100),
  'seed-base': int(0),
  policy: text,
  'base-url': text,
  model: text,
  temperature: float(0),
  'max-tokens': int(256),
  concurrency: int(4)
}

export const collect = make({
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
  flags,
  positionals: true,
  run:
    ({ values, positionals }) =>
    async () => {
      const out = required(values.out, '--out FILE.jsonl is required')
      if (E.isLeft(out)) return out
      const opened = openEnv(positionals[0], values)
      if (E.isLeft(opened)) return opened
      const h = opened.right
      const { 'base-url': baseUrl, model, temperature, 'max-tokens': maxTokens, concurrency } = values
      const agent = E.mapLeft(usage)(ChatLog.agentOf(h, { policy: values.policy, chat: { baseUrl, model, temperature, maxTokens, concurrency } }))
      if (E.isLeft(agent)) return agent
      const result = await ChatLog.collect({
        factory: h.make,
        seeds: Array.from({ length: values.episodes }, (_, i) => values['seed-base'] + i),
        agent: agent.right,
        path: out.right,
        concurrency: values.concurrency,
        meta: { collectedBy: values['base-url'] === undefined ? 'expert' : values.model }
      })()
      h.dispose()
      if (E.isLeft(result)) return E.left(failed(JSON.stringify(result.left)))
      process.stdout.write(`${JSON.stringify(result.right)}\n`)
      return E.right(0)
    }
})
