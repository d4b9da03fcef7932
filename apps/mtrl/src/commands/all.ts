/**
 * The mtrl commands, one per file of this folder: what `mtrl --help` lists and `main` dispatches.
 * Each command's module (and the libraries it imports) loads only when that command runs: a
 * spawned `mtrl --help` or `mtrl info` does not load every command's libraries from source
 * (`mtrl --help` took 2.3 s of CPU, most of it @mtrl/recipe's graph; test/Command.test.ts checks
 * that each name and summary here is its command's own).
 */
import type { Command } from '@mtrl/cli'
import * as TE from 'fp-ts/lib/TaskEither.js'

/** A command as `mtrl --help` lists it, and how to load it. */
export interface Entry {
  readonly name: string
  readonly summary: string
  readonly load: () => Promise<Command.Command>
}

/** Every command, in the order `mtrl --help` lists them. */
export const entries: ReadonlyArray<Entry> = [
  { name: 'start', summary: 'the main job (what npm start runs): info, then the default recipe', load: async () => (await import('./Start.js')).start },
  { name: 'train', summary: 'run a recipe: pretrain, SFT and RL stages, evaluation', load: async () => (await import('./Train.js')).train },
  { name: 'sft', summary: 'run only the SFT stages of a recipe', load: async () => (await import('./Train.js')).sft },
  { name: 'resume', summary: 'continue a stopped or killed run from its last checkpoint', load: async () => (await import('./Train.js')).resume },
  { name: 'eval', summary: 'evaluate a run or a checkpoint on held-out seeds', load: async () => (await import('./Eval.js')).evalCommand },
  { name: 'failures', summary: 'why a policy lost its TextWorld games (from eval transcripts)', load: async () => (await import('./Failures.js')).failures },
  {
    name: 'probe',
    summary: "a policy's probability of the expert's command where the expert writes a verb",
    load: async () => (await import('./Probe.js')).probe
  },
  { name: 'ablate', summary: 'run a grid of recipe variations with repeated seeds; one row per cell', load: async () => (await import('./Ablate.js')).ablate },
  {
    name: 'results',
    summary: 'list the test-seed ledger: every look at the test split, with its recipe version, seed and checkpoint',
    load: async () => (await import('./Results.js')).results
  },
  {
    name: 'interval',
    summary: 'a success rate over seeds with its 95% interval (inside [0, 100]) from the seeds’ rates in %',
    load: async () => (await import('./Interval.js')).interval
  },
  { name: 'report', summary: 'write report.html (learning curves, evaluation table) for a run', load: async () => (await import('./ReportCmd.js')).report },
  { name: 'info', summary: 'versions, compute backend, installed accelerators', load: async () => (await import('./Info.js')).info },
  { name: 'play', summary: 'play an environment in the terminal, or watch its expert', load: async () => (await import('./Play.js')).playCommand },
  { name: 'serve-env', summary: 'serve an environment over HTTP (AgentGym protocol)', load: async () => (await import('./ServeEnv.js')).serveEnv },
  {
    name: 'serve-policy',
    summary: 'serve an agent over the OpenAI API (chat completions, responses)',
    load: async () => (await import('./ServePolicy.js')).servePolicy
  },
  { name: 'worker', summary: 'play episode jobs from a Redis queue (scale-out rollouts)', load: async () => (await import('./Worker.js')).worker },
  { name: 'collect', summary: 'record expert or model episodes as OpenAI-chat JSONL (SFT data)', load: async () => (await import('./Collect.js')).collect },
  {
    name: 'advantages',
    summary: 'compute advantages and returns from JSON (check against other frameworks)',
    load: async () => (await import('./Advantages.js')).advantages
  },
  {
    name: 'logprobs',
    summary: 'ids, next-token log-probs and greedy ids of a text under a model folder',
    load: async () => (await import('./LogprobsCmd.js')).logprobs
  },
  { name: 'export', summary: 'write a trained model (LoRA merged) as a Hugging Face folder', load: async () => (await import('./ExportCmd.js')).exportCommand },
  { name: 'smoke', summary: 'one training step of a tiny model on the chosen backend', load: async () => (await import('./Smoke.js')).smoke }
]

/** A command not yet loaded: its name and summary, loaded when it runs. */
const listed = (entry: Entry): Command.Command => ({
  name: entry.name,
  summary: entry.summary,
  help: entry.summary,
  flags: {},
  run: (argv) => TE.flatten(TE.fromTask(async () => (await entry.load()).run(argv)))
})

/** The commands for a command line whose first word is `name`: the command it names loaded, the others listed. */
export const commandsFor = (name: string | undefined): Promise<ReadonlyArray<Command.Command>> =>
  Promise.all(entries.map((entry) => (entry.name === name ? entry.load() : Promise.resolve(listed(entry)))))

/** Every command, loaded. */
export const all = (): Promise<ReadonlyArray<Command.Command>> => Promise.all(entries.map((entry) => entry.load()))
