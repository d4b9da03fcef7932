/**
 * An agent written as code against the built-in rollout loop, on the same checkpoint and the same
 * games: how many each wins, how long their episodes are, and the games where they differ.
 *
 *   npm run compare-loops -w @mtrl/agent-rl -- CHECKPOINT AGENT.ts [--env alfworld|textworld:SETTING]
 *     [--format plain|tagged|tool] [--temperature T] [--games N] [--first SEED] [--max-tokens N] [--backend B]
 *
 * e.g. `npm run compare-loops -w @mtrl/agent-rl -- runs/alfworld-tools-.../checkpoints/stage-0/end
 * examples/alfworld-tools.ts --env alfworld --format tool --temperature 0.7 --first 500`.
 * Paths are from the repository root.
 */
import { Backend } from '@mtrl/backend'
import { Rng, type Env } from '@mtrl/core'
import { AlfWorld } from '@mtrl/env-alfworld'
import { Settings, TextWorld } from '@mtrl/env-textworld'
import { Agent, Sampler } from '@mtrl/policy'
import { ActionFormat, Rollout } from '@mtrl/rollout'
import { Completions, Rollouts, Server } from '@mtrl/serving'
import * as E from 'fp-ts/lib/Either.js'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import * as Play from '../src/Play.js'

const root = resolve(import.meta.dirname, '..', '..', '..')
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    env: { type: 'string', default: 'alfworld' },
    format: { type: 'string', default: 'plain' },
    temperature: { type: 'string', default: '0' },
    games: { type: 'string', default: '48' },
    first: { type: 'string', default: '500' },
    'max-tokens': { type: 'string', default: '40' },
    backend: { type: 'string', default: 'wasm' }
  }
})
const [checkpoint, agentModule] = positionals
if (checkpoint === undefined || agentModule === undefined) throw new Error('usage: CHECKPOINT AGENT.ts [options] (see the file comment)')

const envOf = (spec: string): (() => Env.Env) => {
  if (spec === 'alfworld') return () => AlfWorld.make({ split: 'train' })
  const setting = Settings.parse(spec.replace(/^textworld:/, ''))
  if (E.isLeft(setting)) throw new Error(setting.left)
  return () => TextWorld.make(setting.right)
}

const main = async (): Promise<void> => {
  const backend = await Backend.select(values.backend as Backend.Name)()
  if (E.isLeft(backend)) throw new Error(Backend.message(backend.left))
  const loaded = await Agent.load(resolve(root, checkpoint))()
  if (E.isLeft(loaded)) throw new Error(`cannot load ${checkpoint}`)
  const agent = loaded.right
  const format = values.format as ActionFormat.ActionFormat
  if (!ActionFormat.ActionFormat.is(format)) throw new Error(`--format: plain, tagged or tool, got ${format}`)
  const temperature = Number(values.temperature)
  const maxTokens = Number(values['max-tokens'])
  const seeds = Array.from({ length: Number(values.games) }, (_, i) => Number(values.first) + i)
  const make = envOf(values.env!)
  const envs = (): Env.Env[] => seeds.map(() => make())
  const options = { ...Rollout.defaultOptions, actionFormat: format, systemPrompt: '', temperature, maxTurns: make().spec.maxTurns, maxNewTokens: maxTokens }

  const session = Sampler.make(agent.policy, { slots: seeds.length, maxLen: agent.contextLength })
  const builtIn = await Rollout.run(options)({ session, template: agent.template, tokenizer: agent.tokenizer, contextLength: agent.contextLength })({
    envs: envs(),
    seeds,
    groupSize: 1,
    rng: Rng.make(0)
  })()
  session.dispose()
  if (E.isLeft(builtIn)) throw new Error(`built-in loop: ${builtIn.left._tag}`)

  const module = await Play.fromModule(resolve(root, agentModule))
  if (E.isLeft(module)) throw new Error(module.left)
  const model = Completions.model(agent, { name: 'policy', slots: seeds.length })
  const rollouts = Rollouts.make()
  const server = await Server.start({ model, rollouts })()
  if (E.isLeft(server)) throw new Error(server.left.reason)
  const played = await Play.play(module.right, { url: server.right.url, rollouts, model: 'policy', tokenizer: agent.tokenizer, temperature, maxTokens })({
    envs: envs(),
    seeds,
    groupSize: 1,
    rng: Rng.make(0)
  })()
  await server.right.close()
  await model.close()
  if (E.isLeft(played)) throw new Error(`agent: ${JSON.stringify(played.left)}`)

  const a = builtIn.right.episodes.map((e) => e.trajectory)
  const b = played.right.episodes.map((e) => e.trajectory)
  const summary = (ts: typeof a): string =>
    `won ${ts.filter((t) => t.won).length} of ${ts.length}, ${(ts.reduce((n, t) => n + t.turns.length, 0) / ts.length).toFixed(2)} turns per episode`
  const endings = builtIn.right.episodes.reduce((m: Record<string, number>, e) => ({ ...m, [e.ending]: (m[e.ending] ?? 0) + 1 }), {})
  process.stdout.write(`games ${seeds[0]}..${seeds[seeds.length - 1]}, temperature ${temperature}, ${values.backend}\n`)
  process.stdout.write(
    `built-in loop (${format}): ${summary(a)}, ${a.reduce((n, t) => n + t.turns.filter((x) => !x.parsed).length, 0)} unparsed replies, endings ${JSON.stringify(endings)}\n`
  )
  process.stdout.write(`agent ${agentModule}: ${summary(b)}\n`)
  const differ = a.map((t, i) => i).filter((i) => a[i]!.won !== b[i]!.won || a[i]!.turns.length !== b[i]!.turns.length)
  process.stdout.write(
    `games that differ (won or length): ${differ.length}; of those, the built-in loop had an unparsed reply in ${differ.filter((i) => a[i]!.turns.some((x) => !x.parsed)).length}\n`
  )
}

void main()
