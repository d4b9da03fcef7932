/**
 * `mtrl eval`: success rate (with a 95% confidence interval), mean turns, per task type, of a
 * run's final policy or of any checkpoint, on held-out seeds; or of a remote model.
 */
import { Evaluate, Summary } from '@mtrl/eval'
import { ChatPolicy, Episode } from '@mtrl/env-http'
import { Ledger, Progress, RunDir } from '@mtrl/experiment'
import { Evaluation, Recipe, type EnvConfig } from '@mtrl/recipe'
import { Rollout } from '@mtrl/rollout'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { writeFile } from 'node:fs/promises'
import { backendFlag, bool, failed, float, int, make, required, text, usage, type CliError, type Values } from '../Command.js'
import { envFlags, envFlagsHelp, envFromFlags, envSource } from '../EnvFlags.js'
import { readJson } from '../Input.js'
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

/** Evaluation of a remote model (OpenAI-compatible chat API) on held-out seeds: the same summary as a local evaluation. */
const evalRemote = async (baseUrl: string, values: Flags, positionals: ReadonlyArray<string>): Promise<E.Either<CliError, number>> => {
  if (values.seed !== undefined) return E.left(usage('--seed sets the sampling seed of a local model; a served model (--base-url) samples on its server'))
  const parsed = pipe(
    E.Do,
    E.apS('env', envFromFlags(positionals[0], values)),
    E.apS('model', required(values.model, '--model NAME is required with --base-url'))
  )
  if (E.isLeft(parsed)) return parsed
  const { env, model } = parsed.right
  const { episodes = Evaluate.defaultSettings.episodes, 'seed-base': seedBase = Evaluate.defaultSettings.seedBase, temperature = 0, concurrency } = values
  const h = envSource(env)
  const policy = ChatPolicy.make({ baseUrl, model, temperature, concurrency })
  const { played, failed: lost } = await Episode.playSeeds({ maxTurns: h.maxTurns })(policy.agent)(
    h,
    Array.from({ length: episodes }, (_, i) => seedBase + i)
  )()
  h.dispose()
  const split = Evaluate.resolve({ seedBase }).split
  const results = [{ ...Summary.summarise(h.name, played.map(Episode.outcome)), seeds: { split, first: seedBase, count: played.length } }]
  const summary = { model, played: played.length, failed: lost.length, results }
  process.stdout.write(`${JSON.stringify(summary, null, values.json === true ? 2 : 0)}\n`)
  // a served model has no checkpoint to hash: its test looks are recorded, never refused (decision 0018)
  const look = { recipe: null, recipeHash: null, seed: null, run: null, checkpoint: null, samplingSeed: 0, backend: 'remote', via: 'eval' as const }
  const recorded = Ledger.record(Ledger.path())(Ledger.looksOf({ ...look, phase: `mtrl eval --base-url ${baseUrl} --model ${model}`, temperature })(results))
  if (E.isLeft(recorded)) return E.left(failed(`the test-seed ledger: ${recorded.left}`))
  recorded.right.notes.forEach((n) => process.stderr.write(`${n}\n`))
  return E.right(summary.failed === 0 ? 0 : 1)
}

/** What to evaluate: a run's final policy on its own evaluation, or a checkpoint on the environment of the flags (a checkpoint inside a run with the run's rollout and evaluation settings). */
const target = async (values: Flags, positionals: ReadonlyArray<string>): Promise<E.Either<CliError, Evaluation.Target>> => {
  const { run: runDir, checkpoint } = values
  if (runDir !== undefined) {
    const run = RunDir.open(runDir)
    const json = await readJson(run.file('recipe.json'))()
    return E.chain((recipe: unknown) => E.mapLeft(usage)(Evaluation.ofRun(run)(recipe)))(json)
  }
  if (checkpoint === undefined) return E.left(usage('give --run DIR or --checkpoint DIR'))
  const env = envFromFlags(positionals[0], values)
  if (E.isLeft(env)) return env
  return checkpointTarget(checkpoint, env.right, values.hf === true)
}

/**
 * A checkpoint on `env`: inside a run (RUN/checkpoints/stage-N/...) with the run's rollout and
 * evaluation settings, else (or a Hugging Face folder) with the defaults, said on stderr.
 */
export const checkpointTarget = async (checkpoint: string, env: EnvConfig.EnvConfig, hf: boolean): Promise<E.Either<CliError, Evaluation.Target>> => {
  const run = hf ? undefined : Progress.runOfCheckpoint(checkpoint)
  if (run === undefined) {
    if (!hf)
      process.stderr.write(
        `${checkpoint}: not inside a run (no recipe.json in the folder above checkpoints/stage-N), so it plays with the default rollout settings (system prompt ${JSON.stringify(Rollout.defaultOptions.systemPrompt)}); a policy trained with another system prompt plays off its distribution\n`
      )
    return E.right(Evaluation.ofFolder(checkpoint, hf ? 'hf' : 'checkpoint', env))
  }
  process.stderr.write(
    `${checkpoint}: a checkpoint of ${run.path}, played with its rollout settings (system prompt, tokens per action) and evaluation settings\n`
  )
  const json = await readJson(run.file('recipe.json'))()
  return E.chain((recipe: unknown) => E.mapLeft(usage)(Evaluation.ofRunCheckpoint(run, checkpoint, env)(recipe)))(json)
}

/** The recipe's evaluation with the flags' overrides (`--split` or `--seed-base` choose the held-out seeds; neither: the recipe's own; `--seed` the sampling's). */
const withFlags = (recipe: Recipe.Resolved, values: Flags): E.Either<CliError, Recipe.Resolved> => {
  const { split, 'seed-base': seedBase, episodes = recipe.eval.episodes, temperature = recipe.eval.temperature, seed = recipe.seed } = values
  if (split !== undefined && !Evaluate.Split.is(split)) return E.left(usage(`--split ${split}: expected validation or test`))
  const seeds = seedBase !== undefined ? Evaluate.resolve({ seedBase }) : split !== undefined ? Evaluate.resolve({ split }) : recipe.eval
  return E.right({ ...recipe, seed, eval: { ...recipe.eval, episodes, temperature, split: seeds.split, seedBase: seeds.seedBase } })
}

/** Evaluation of a local model (a run's, a checkpoint, a Hugging Face folder). */
const evalLocal = async (values: Flags, positionals: ReadonlyArray<string>): Promise<E.Either<CliError, number>> => {
  const chosen = await target(values, positionals)
  const planned = E.chain((t: Evaluation.Target) => E.map((recipe: Recipe.Resolved) => ({ ...t, recipe }))(withFlags(t.recipe, values)))(chosen)
  if (E.isLeft(planned)) return planned
  const backend = await startBackend(values.backend)()
  if (E.isLeft(backend)) return backend
  const { transcripts } = values
  const lines: string[] = []
  const note = (text: string) => void process.stderr.write(`${text}\n`)
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
