/**
 * A recipe, end to end: build the agent, evaluate it, run each stage (SFT or RL with its own
 * environment, pretraining on a mixture of them), evaluate after each, and write everything into
 * the run folder. Failures are values (`RunError`), a stop on request included. Progress goes to
 * the caller's `Reporter`.
 *
 * @since 0.1.0
 */
import type { Play } from '@mtrl/agent-rl'
import type { Env } from '@mtrl/core'
import { Summary } from '@mtrl/eval'
import { Ledger, Progress, Report, type RunDir } from '@mtrl/experiment'
import { Agent } from '@mtrl/policy'
import { Corpus } from '@mtrl/pretrain'
import type { Runner } from '@mtrl/rollout-queue'
import type { Replicas } from '@mtrl/trainer-sft'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { label, source } from './EnvConfig.js'
import * as Evaluation from './Evaluation.js'
import * as Model from './Model.js'
import { corpusEnvs, stageEnv, type Resolved, type Stage } from './Recipe.js'
import { failed, stopped, type RunError } from './RunError.js'
import { never, type Context, type Reporter, type StopSignal } from './internal/context.js'
import * as Looks from './internal/looks.js'
import * as PretrainStage from './internal/pretrainStage.js'
import * as RlStage from './internal/rlStage.js'
import * as SftStage from './internal/sftStage.js'

export type { Bar, MakeBar, Reporter, StopSignal } from './internal/context.js'
export { never } from './internal/context.js'
export type PhaseEval = Progress.PhaseEval

/** The backend a run computes on, as the app chose it (recorded whole in eval.json). */
export interface BackendInfo {
  readonly name: string
}

/** What a finished run returns and writes to eval.json. @category model */
export interface Summary {
  readonly run: string
  readonly backend: BackendInfo
  readonly evals: ReadonlyArray<PhaseEval>
  readonly seconds: number
}

/** A run's summary for people: each evaluation phase's table, then the run folder. @category destructors */
export const formatSummary = (summary: Summary): string =>
  [
    `\n=== summary (${summary.seconds.toFixed(0)} s on ${summary.backend.name}) ===`,
    ...summary.evals.flatMap((phase) => [`${phase.phase}:`, Summary.format(phase.results)]),
    `run folder: ${summary.run}`
  ].join('\n')

/** @category model */
export interface Options {
  /** The run folder (`RunDir` of @mtrl/experiment). */
  readonly run: RunDir.RunDir
  readonly backend: BackendInfo
  readonly reporter: Reporter
  /** Continue the run in `run` from its last checkpoint. */
  readonly resume?: boolean
  /** Asked after every iteration and step: when true, the run checkpoints and stops. */
  readonly stop?: StopSignal
  /** When set, RL episodes are played by the queue's workers (same trajectories for the same seed). */
  readonly queue?: Runner.Runner
  /** What each data-parallel replica thread (SFT, and RL updates) imports first (the app activates its backend there: `@mtrl/backend`'s `ThreadInit`). */
  readonly replicaInit?: Replicas.Init
  /** Agents written as code, by the name RL stages give as `agent` (looked up before a module of that path; `AgentRl.train`). */
  readonly agents?: Readonly<Record<string, Play.Agent>>
  /** Write report.html at the end (default true; a browser page, which draws its own charts, says false). */
  readonly report?: boolean
  /**
   * The test-seed ledger (`Ledger.path()` of @mtrl/experiment): every evaluation on test seeds is
   * recorded there (a run is never refused; a rerun is a later look). None: nothing is recorded.
   */
  readonly ledger?: string
}

/** `stage 2 (rl on textworld/w2-o3-q4)`, `stage 1 (pretrain on textworld w1-8 o1-12 q1-8 + cooking + alfworld/train)`. */
export const stageName = (stage: Stage, i: number): string =>
  `stage ${i + 1} (${stage.kind} on ${stage.kind === 'pretrain' ? PretrainStage.label(stage) : label(stage.env)})`

/** The agent a run starts with: the last finished stage's (resuming), or a new one. */
const startAgent = (
  recipe: Resolved,
  run: RunDir.RunDir,
  progress: Progress.Progress,
  sources: ReadonlyArray<Env.EnvSource | undefined>,
  reporter: Reporter
): TE.TaskEither<RunError, Agent.Agent> => {
  if (progress.nextStage > 0) {
    reporter.line(`resuming at stage ${progress.nextStage + 1} of ${recipe.stages.length}`)
    return pipe(Agent.load(Progress.stageEnd(run, progress.nextStage - 1)), TE.mapLeft(Model.policyError))
  }
  if (recipe.model.kind !== 'scratch')
    return pipe(
      Model.pretrained(recipe.model),
      TE.map((agent) => {
        // which layout rollouts and SFT data follow: the model's own chat template, or why not
        if (agent.template.origin !== undefined) reporter.line(`chat layout: ${agent.template.origin}`)
        return agent
      })
    )
  const formats = [recipe.rollout?.actionFormat, ...recipe.stages.map((s) => ('rollout' in s ? s.rollout?.actionFormat : undefined))].filter(
    (f) => f !== undefined
  )
  const first = recipe.stages[0]
  if (first?.kind === 'pretrain') {
    // the tokenizer from the very transcripts the first stage trains on (never from expert episodes)
    reporter.line(`building the agent (word tokenizer from the ${first.episodes} pretraining transcripts of stage 1)`)
    const model = recipe.model
    return pipe(
      PretrainStage.transcripts(recipe, 0, first),
      TE.map((transcripts) => Model.fromTexts(model, recipe.seed)(Corpus.texts(transcripts, Model.replies(formats))))
    )
  }
  reporter.line(`building the agent (word tokenizer from ${recipe.model.corpusEpisodes} expert episodes per environment)`)
  return Model.scratch(
    recipe.model,
    sources.filter((s) => s !== undefined),
    recipe.seed,
    formats
  )
}

/**
 * Records a phase's test looks in the ledger (when the run has one); what it says goes to the
 * reporter. The checkpoint is hashed only then: hashing reads files with node:crypto, which a run
 * without a ledger (the browser page's) does not have.
 */
const recordLooks = (ctx: Context, phase: string, checkpoint: () => string | null, results: ReadonlyArray<Summary.Summary>): E.Either<RunError, void> => {
  if (ctx.looks === undefined) return E.right(undefined)
  const recorded = Looks.recordPhase(ctx.looks, ctx.recipe, ctx.run.path, phase, checkpoint())(results)
  if (E.isLeft(recorded)) return E.left(failed(`the test-seed ledger: ${recorded.left}`))
  for (const note of recorded.right.notes) ctx.reporter.line(note)
  return E.right(undefined)
}

/**
 * Evaluates the agent as `phase` (once per run: a resumed run skips phases done; never without
 * evaluation environments); `checkpoint` identifies what plays, for the test-seed ledger.
 */
const evalPhase = async (ctx: Context, phase: string, checkpoint: () => string | null): Promise<E.Either<RunError, void>> => {
  // a recipe of pretrain stages only has no environment to evaluate on unless it names one
  if (ctx.evalSources.length === 0 || ctx.progress.evals.some((e) => e.phase === phase)) return E.right(undefined)
  const t0 = performance.now()
  const results = await Evaluation.all(ctx.agent, ctx.recipe, ctx.evalSources)()
  if (E.isLeft(results)) return results
  const seconds = (performance.now() - t0) / 1000
  ctx.progress = { ...ctx.progress, evals: [...ctx.progress.evals, { phase, results: results.right }] }
  ctx.run.appendMetrics({ kind: 'eval', phase, results: results.right, seconds })
  Progress.write(ctx.run, ctx.progress)
  ctx.reporter.line(`eval ${phase} (${seconds.toFixed(1)} s):\n${Summary.format(results.right)}`)
  return recordLooks(ctx, phase, checkpoint, results.right)
}

/** Runs stage `i`, saves its end, records it done and evaluates after it. */
const runStage = async (ctx: Context, i: number): Promise<E.Either<RunError, void>> => {
  const { recipe, run } = ctx
  const stage = recipe.stages[i]!
  const name = stageName(stage, i)
  const ran =
    stage.kind === 'sft'
      ? await SftStage.run(ctx, i, stage, name)
      : stage.kind === 'pretrain'
        ? await PretrainStage.run(ctx, i, stage, name)
        : await RlStage.run(ctx, i, stage, name)
  if (E.isLeft(ran)) return ran
  const saved = await pipe(Agent.save(Progress.stageEnd(run, i), ctx.agent, { stage: i }), TE.mapLeft(Model.policyError))()
  if (E.isLeft(saved)) return saved
  ctx.progress = { ...ctx.progress, nextStage: i + 1 }
  Progress.write(run, ctx.progress)
  if (stage.kind !== 'rl') Progress.removeSftLatest(run, i)
  const last = i === recipe.stages.length - 1
  if (recipe.evalAfterEachStage || last) {
    const evaluated = await evalPhase(ctx, `after ${name}`, () => Ledger.checkpointHash(Progress.stageEnd(run, i)) ?? null)
    if (E.isLeft(evaluated)) return evaluated
  }
  return ctx.stop.requested() && !last ? E.left(stopped(`stopped after ${name}; continue with: mtrl resume ${run.path}`)) : E.right(undefined)
}

/** Evaluates before training (when asked: `evalBeforeTraining`) and runs the stages not finished yet. */
const runStages = async (ctx: Context): Promise<E.Either<RunError, void>> => {
  if (ctx.resume) Progress.truncateMetrics(ctx.run, ctx.progress, Number.POSITIVE_INFINITY)
  if (ctx.recipe.evalBeforeTraining) {
    const before = await evalPhase(ctx, 'before training', () => Looks.startCheckpoint(ctx.recipe))
    if (E.isLeft(before)) return before
  }
  for (let i = ctx.progress.nextStage; i < ctx.recipe.stages.length; i++) {
    const ran = await runStage(ctx, i)
    if (E.isLeft(ran)) return ran
  }
  return E.right(undefined)
}

/**
 * Runs a resolved recipe into `run`, or continues it (`resume`) from its last checkpoint:
 * finished stages are skipped, an RL stage continues from its last iteration checkpoint with
 * the same random streams, an SFT stage from its last mid-stage checkpoint (every
 * `checkpointEvery` steps) with the same data order. With `stop` requested (Ctrl-C) it writes a
 * checkpoint after the current iteration or step and ends with `Stopped`. With `queue`, RL
 * episodes are played by the queue's workers (same trajectories for the same seed). Writes
 * progress.json, metrics.jsonl, checkpoints/, eval.json and report.html into the run folder.
 *
 * @category running
 */
export const run =
  (options: Options) =>
  (recipe: Resolved): TE.TaskEither<RunError, Summary> =>
  async () => {
    const { run, backend, reporter, resume = false, stop = never, queue, replicaInit, agents = {}, report = true, ledger } = options
    const started = performance.now()
    const stageSources = recipe.stages.map((s) => {
      const env = stageEnv(s)
      return env === undefined ? undefined : source(env, reporter.note)
    })
    const evalSources = recipe.eval.envs.map((env) => source(env, reporter.note))
    const pinned = recipe.model.kind === 'scratch' && recipe.model.corpusEnvs !== undefined
    const corpusSources = pinned ? corpusEnvs(recipe).map((env) => source(env, reporter.note)) : [...stageSources, ...evalSources]
    const progress = resume ? Progress.read(run) : Progress.initial
    try {
      const agent = await startAgent(recipe, run, progress, corpusSources, reporter)()
      if (E.isLeft(agent)) return agent
      const looks = ledger === undefined ? undefined : { ledger, backend: backend.name }
      const ctx: Context = { recipe, run, reporter, resume, stop, stageSources, evalSources, queue, replicaInit, agents, looks, agent: agent.right, progress }
      const { config } = ctx.agent.policy
      reporter.line(`model: ${config.layers} layers, d ${config.dModel}, vocab ${ctx.agent.tokenizer.vocabSize}, context ${ctx.agent.contextLength}`)
      try {
        const ran = await runStages(ctx)
        if (E.isLeft(ran)) return ran
      } finally {
        ctx.agent.dispose()
      }
      Progress.write(run, { ...ctx.progress, finished: true })
      const summary = { run: run.path, backend, evals: ctx.progress.evals, seconds: (performance.now() - started) / 1000 }
      run.writeJson('eval.json', summary)
      if (report) Report.write(run, `mtrl run ${recipe.name}`)
      return E.right(summary)
    } finally {
      for (const s of [...stageSources, ...evalSources, ...(pinned ? corpusSources : [])]) s?.dispose()
    }
  }
