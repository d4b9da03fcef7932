/**
 * `mtrl eval`: success rate (with a 95% confidence interval), mean turns, per task type, of a
 * run's final policy or of any checkpoint, on held-out seeds; or of a remote model.
 */
import { Summary } from '@mtrl/eval'
import { Ledger } from '@mtrl/experiment'
import { Evaluation, RemoteEvaluation, type EnvConfig } from '@mtrl/recipe'
import * as E from 'fp-ts/lib/Either.js'
import { writeFile } from 'node:fs/promises'
import { backendFlag, bool, failed, float, int, make, required, text, usage, type CliError, type Values } from '../Command.js'
import { envFlags, envFlagsHelp, envFromFlags } from '../EnvFlags.js'
import { startBackend } from '../Runtime.js'

const flags = {
  ...backendFlag,
  ...envFlags,
  ...{
    run: text,
    checkpoint: text,
    hf: bool,
    episodes: int(),
    temperature: float(),
    'seed-base': int(),
    seed: int(),
    split: text,
    json: bool,
    transcripts: text
  },
  ...{ 'base-url': text, model: text, concurrency: int(4) }
}
type Flags = Values<typeof flags>

const note = (text: string) => void process.stderr.write(`${text}\n`)

/** Evaluation of a remote model (OpenAI-compatible chat API) on held-out seeds: the same summary as a local evaluation. */
const evalRemote = async (baseUrl: string, values: Flags, positionals: ReadonlyArray<string>): Promise<E.Either<CliError, number>> => {
  if (values.seed !== undefined) return E.left(usage('--seed sets the sampling seed of a local model; a served model (--base-url) samples on its server'))
  const env = envFromFlags(positionals[0], values)
  const model = required(values.model, '--model NAME is required with --base-url')
  if (E.isLeft(env)) return env
  if (E.isLeft(model)) return model
  const { episodes, 'seed-base': seedBase, temperature, concurrency } = values
  const options = { baseUrl, model: model.right, concurrency, ledger: Ledger.path(), note, ...defined({ episodes, seedBase, temperature }) }
  const summary = await RemoteEvaluation.run(options)(env.right)()
  if (E.isLeft(summary)) return E.left(failed(summary.left.message))
  process.stdout.write(`${JSON.stringify(summary.right, null, values.json === true ? 2 : 0)}\n`)
  return E.right(summary.right.failed === 0 ? 0 : 1)
}

/** The fields whose value is given. */
const defined = <R extends Record<string, unknown>>(record: R): { [K in keyof R]?: Exclude<R[K], undefined> } =>
  Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as { [K in keyof R]?: Exclude<R[K], undefined> }

/**
 * What to evaluate: a run's final policy on its own evaluation, or a checkpoint on the
 * environment of the flags (a checkpoint inside a run with the run's rollout and evaluation settings).
 */
const target = (values: Flags, positionals: ReadonlyArray<string>): E.Either<CliError, Evaluation.Target> => {
  const { run, checkpoint } = values
  if (run !== undefined) return E.mapLeft(usage)(Evaluation.ofRunDir(run))
  if (checkpoint === undefined) return E.left(usage('give --run DIR or --checkpoint DIR'))
  return E.chain((env: EnvConfig.EnvConfig) => E.mapLeft(usage)(Evaluation.ofCheckpoint(checkpoint, env, values.hf === true, note)))(
    envFromFlags(positionals[0], values)
  )
}

/** Evaluation of a local model (a run's, a checkpoint, a Hugging Face folder). */
const evalLocal = async (values: Flags, positionals: ReadonlyArray<string>): Promise<E.Either<CliError, number>> => {
  const { split, 'seed-base': seedBase, episodes, temperature, seed } = values
  const planned = E.chain((t: Evaluation.Target) => E.mapLeft(usage)(Evaluation.withOverrides({ split, seedBase, episodes, temperature, seed })(t)))(
    target(values, positionals)
  )
  if (E.isLeft(planned)) return planned
  const backend = await startBackend(values.backend)()
  if (E.isLeft(backend)) return backend
  const { transcripts } = values
  const lines: string[] = []
  const looks = { ledger: Ledger.path(), backend: backend.right.name }
  const results = await Evaluation.run({ note, looks, ...(transcripts === undefined ? {} : { onTranscript: (t) => lines.push(JSON.stringify(t)) }) })(
    planned.right
  )()
  if (E.isLeft(results)) return E.left(failed(results.left.message))
  if (transcripts !== undefined) await writeFile(transcripts, lines.length === 0 ? '' : `${lines.join('\n')}\n`)
  const { path } = planned.right.model
  if (values.json === true) process.stdout.write(`${JSON.stringify({ model: path, results: results.right }, null, 2)}\n`)
  else process.stdout.write(`${path}:\n${Summary.format(results.right)}\n${Summary.formatTaskTypes(results.right)}\n`)
  return E.right(0)
}

export const evalCommand = make({
  name: 'eval',
  summary: 'evaluate a run or a checkpoint on held-out seeds',
  help: `mtrl eval --run DIR [--episodes N]
mtrl eval --checkpoint DIR ENV [settings] [--episodes 100] [--temperature 0] [--split test|validation | --seed-base N]
          [--seed N] [--transcripts FILE]
mtrl eval --base-url URL --model NAME ENV [settings] [--episodes 100] [--concurrency 4]

With --run, the run's final policy on the run's evaluation environments and seeds (so it
reproduces the run's last evaluation). With --checkpoint, any mtrl checkpoint (or Hugging
Face folder with --hf) on the environment given by ENV and its flags; a checkpoint inside a run
(RUN/checkpoints/stage-N/...) plays with that run's rollout settings (its system prompt and
tokens per action, as it was trained) and evaluation settings, the flags overriding. With --base-url, a model
served with an OpenAI-compatible API (vLLM, SGLang, Ollama, llama.cpp; key from
OPENAI_API_KEY) plays through chat messages. Writes JSON with --json. --transcripts FILE
writes every episode (prompt, actions, observations, rewards) as JSON lines, to see how the
policy fails. --seed N draws another sample of the same games at --temperature above 0 (the
sampling's seed; default the run's, or 0), e.g. to count how often a policy wins each game.
--backend B chooses the compute backend of a local model.

Test seeds are looked at once: an evaluation of a local model on test seeds is recorded in the
test-seed ledger (results/test-looks.jsonl, or MTRL_LEDGER; mtrl results lists it), and refused
when another checkpoint of the same recipe version and training seed was looked at before
(docs/decisions/0018-test-seed-ledger.md); the same checkpoint again must give the same figure.

${envFlagsHelp}

Examples:
  mtrl eval --run runs/default-20261130-101500Z
  mtrl eval --checkpoint runs/default-20261130-101500Z/checkpoints/stage-1/end textworld --config w4-o6-q8 --episodes 200
  mtrl eval --run runs/default-20261130-101500Z --transcripts failures.jsonl`,
  flags,
  positionals: true,
  run:
    ({ values, positionals }) =>
    async () =>
      values['base-url'] !== undefined ? evalRemote(values['base-url'], values, positionals) : evalLocal(values, positionals)
})
