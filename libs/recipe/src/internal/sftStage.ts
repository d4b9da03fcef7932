/**
 * An SFT stage: demonstrations (the environment's expert, or a JSONL file), then `Sft.trainAsync`
 * with data-parallel replicas, mid-stage checkpoints and the stage's held-out checks (`until`);
 * its metrics go to the run folder.
 */
import { EnvError, Rng, Trajectory } from '@mtrl/core'
import { Evaluate } from '@mtrl/eval'
import { Progress } from '@mtrl/experiment'
import { Agent, PolicyError, Sampler } from '@mtrl/policy'
import { Checkpointing, Demonstrations, Driver, ExpertData, Replicas, Sft } from '@mtrl/trainer-sft'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { readFile } from 'node:fs/promises'
import { policyError } from '../Model.js'
import { untilSeedBase, type SftStage, type SftUntil } from '../Recipe.js'
import { failed, stopped, type RunError } from '../RunError.js'
import { generatorFor, noBar, pct, rolloutOptions, type Bar, type Context } from './context.js'
import * as Pretraining from './transcripts.js'

/** The demonstrations of a stage: from a JSONL file in the OpenAI chat format (each must fit the context), or from the expert. */
const demonstrations = async (
  ctx: Context,
  i: number,
  stage: SftStage,
  agent: Agent.Agent
): Promise<E.Either<RunError, ReadonlyArray<Trajectory.Trajectory>>> => {
  const renderer = { template: agent.template, tokenizer: agent.tokenizer }
  if (stage.data !== undefined) {
    const path = stage.data
    const text = await readFile(path, 'utf8').then(E.right, (e: Error) => E.left(failed(`cannot read ${path}: ${e.message}`)))
    if (E.isLeft(text)) return text
    const parsed = ExpertData.fromChatJsonl(renderer)(text.right)
    if (E.isLeft(parsed)) return E.left(failed(`${stage.data}: ${parsed.left}`))
    return E.mapLeft((e: Demonstrations.DemoError) => failed(`${stage.data}: ${Demonstrations.message(e)}`))(
      Demonstrations.fitting(agent.contextLength)(parsed.right)
    )
  }
  const source = ctx.stageSources[i]!
  const rollout = rolloutOptions(source, ctx.recipe.rollout, undefined)
  const { episodes, detourRate, maxDetours } = { ...Demonstrations.defaultSettings, ...stage }
  const options = {
    systemPrompt: rollout.systemPrompt,
    actionFormat: rollout.actionFormat,
    maxTurns: rollout.maxTurns,
    episodes,
    detourRate,
    maxDetours,
    contextLength: agent.contextLength
  }
  const demos = await Demonstrations.fromExpert(options, renderer)(source, Rng.make(ctx.recipe.seed * 7919 + i + 1))()
  return E.mapLeft((e: Demonstrations.DemoError) => failed(Demonstrations.message(e)))(demos)
}

/** When resuming from a mid-stage checkpoint: its agent replaces the context's; returns the snapshot to continue from. */
export const resumeAgent = async (ctx: Context, i: number, name: string): Promise<E.Either<RunError, Sft.Snapshot | undefined>> => {
  if (!ctx.resume) return E.right(undefined)
  const dir = Progress.sftLatest(ctx.run, i)
  const loaded = await Checkpointing.load(dir)()
  if (E.isLeft(loaded)) return E.left(failed(Checkpointing.message(loaded.left)))
  if (O.isNone(loaded.right)) return E.right(undefined)
  const { policy, snapshot } = loaded.right.value
  const agent = Agent.fromPolicy(PolicyError.fileError(dir, 'the checkpoint has no tokenizer'), policy)
  if (E.isLeft(agent)) return E.left(policyError(agent.left))
  ctx.agent.dispose()
  ctx.agent = agent.right
  ctx.reporter.line(`${name}: resuming after step ${snapshot.steps.length}`)
  return E.right(snapshot)
}

/** One held-out check of `until`: the step, the share of the games won, and how many were played. */
interface Check {
  readonly step: number
  readonly success: number
  readonly episodes: number
}

/** Greedy success of the agent on `episodes` games of stage `i`'s environment from {@link untilSeedBase}. */
const checkSuccess = async (ctx: Context, i: number, episodes: number): Promise<E.Either<EnvError.EnvError, number>> => {
  const source = ctx.stageSources[i]!
  const settings = Evaluate.resolve({ episodes, seedBase: untilSeedBase, batch: Math.min(episodes, ctx.recipe.eval.batch) })
  const session = Sampler.make(ctx.agent.policy, { slots: settings.batch, maxLen: ctx.agent.contextLength })
  try {
    const options = { ...settings, rollout: rolloutOptions(source, ctx.recipe.rollout, undefined), seed: ctx.recipe.seed + 1000 }
    const summary = await Evaluate.run(options)(generatorFor(ctx.agent, session))(source)()
    return E.map((s: { readonly successRate: number }) => s.successRate)(summary)
  } finally {
    session.dispose()
  }
}

/**
 * The `enough` of `Sft.trainAsync` for a stage's `until`: a check every `every` steps from
 * `after`, true at the first that wins `success`; each check is reported and kept in `checks`,
 * and an environment failure is kept in `failure` and ends the stage.
 */
const untilChecks = (ctx: Context, i: number, until: SftUntil, name: string, checks: Check[], failure: { error?: string }) => {
  const { episodes, after } = { episodes: 50, after: 0, ...until }
  return async (steps: number): Promise<boolean> => {
    if (steps < after || steps % until.every !== 0) return false
    const success = await checkSuccess(ctx, i, episodes)
    if (E.isLeft(success)) {
      failure.error = `${name}: the held-out check at step ${steps}: ${EnvError.message(success.left)}`
      return true
    }
    const passed = success.right >= until.success
    checks.push({ step: steps, success: success.right, episodes })
    ctx.reporter.line(
      `${name}: step ${steps}: ${pct(success.right)} of ${episodes} held-out games won${passed ? ` (at least ${pct(until.success)}: the stage ends here)` : ''}`
    )
    return passed
  }
}

/** How a stage trains with the SFT loop: its options, data-parallel replicas, checkpoint cadence, and the bar's label. */
export interface Training {
  readonly sft: Sft.Options
  readonly replicas: number
  readonly checkpointEvery: number
  readonly label: string
}

/** Trains the agent on `samples` (an SFT or a pretrain stage's) with the stage's replicas, a bar, and mid-stage checkpoints. */
export const train = async (
  ctx: Context,
  i: number,
  name: string,
  training: Training,
  samples: ReadonlyArray<Trajectory.Trajectory>,
  from: Sft.Snapshot | undefined,
  enough: ((steps: number) => Promise<boolean>) | undefined
): Promise<E.Either<Checkpointing.CheckpointError, Driver.Outcome>> => {
  const { agent, reporter } = ctx
  const pool = await Replicas.start(agent.policy, training.replicas - 1, ctx.replicaInit)
  if (pool.size > 0) reporter.line(`${name}: ${pool.size + 1} data-parallel replicas (workers on ${pool.backends.join(', ')})`)
  let bar: Bar | undefined
  const onStep = (m: Sft.StepMetrics, steps: number): void => {
    bar ??= (reporter.bar ?? noBar)(`${name}: ${training.label}`, steps)
    const context = Number.isNaN(m['loss/context']) ? '' : ` context ${m['loss/context'].toFixed(3)}`
    bar.update(m.step + 1, `loss ${m['loss/sft'].toFixed(3)}${context}`)
    reporter.step?.({ kind: 'sft', stage: i, ...m })
  }
  const options = {
    dir: Progress.sftLatest(ctx.run, i),
    every: training.checkpointEvery,
    ...(from === undefined ? {} : { from }),
    stop: ctx.stop.requested,
    ...(enough === undefined ? {} : { enough }),
    hooks: { onStep },
    replicas: pool
  }
  try {
    return await Driver.run(training.sft, options)(agent.policy)(samples)()
  } finally {
    await pool.dispose()
    bar?.stop()
  }
}

/**
 * A finished (or stopped) SFT loop's outcome into the run folder: its steps and epochs as `sft`
 * and `sft-epoch` metrics, a line per epoch and the speed (`tokens` per epoch; a resumed stage
 * ran only the steps after `from`).
 */
export const record = (
  ctx: Context,
  i: number,
  name: string,
  outcome: E.Either<Checkpointing.CheckpointError, Driver.Outcome>,
  run: { readonly from: Sft.Snapshot | undefined; readonly tokens: number; readonly epochs: number; readonly t0: number }
): E.Either<RunError, Sft.Result> => {
  const { run: dir, reporter } = ctx
  if (E.isLeft(outcome)) return E.left(failed(`${name}: ${Checkpointing.message(outcome.left)}`))
  if (outcome.right._tag === 'Stopped')
    return E.left(stopped(`stopped during ${name} after step ${outcome.right.steps} (checkpoint written); continue with: mtrl resume ${dir.path}`))
  const { result } = outcome.right
  for (const step of result.steps) dir.appendMetrics({ kind: 'sft', stage: i, ...step })
  for (const epoch of result.epochs) {
    dir.appendMetrics({ kind: 'sft-epoch', stage: i, ...epoch })
    reporter.line(`${name}: epoch ${epoch.epoch + 1} loss ${epoch['loss/train'].toFixed(4)} held-out ${epoch['loss/heldout'].toFixed(4)}`)
  }
  const seconds = (performance.now() - run.t0) / 1000
  const share = (result.steps.length - (run.from?.steps.length ?? 0)) / Math.max(1, result.steps.length)
  reporter.line(`${name}: done in ${seconds.toFixed(1)} s (${((run.tokens * run.epochs * share) / seconds).toFixed(0)} tokens/s)`)
  return E.right(result)
}

/**
 * Runs SFT stage `i` on the context's agent, in place (a resumed stage continues from its
 * checkpoint's agent, which replaces it). Stopped on request after writing a checkpoint.
 */
export const run = async (ctx: Context, i: number, stage: SftStage, name: string): Promise<E.Either<RunError, void>> => {
  const { run: dir, reporter } = ctx
  if (ctx.resume) Progress.truncateMetrics(dir, { ...ctx.progress, nextStage: i }, 0)
  const t0 = performance.now()
  const from = await resumeAgent(ctx, i, name)
  if (E.isLeft(from)) return from
  const demos = await demonstrations(ctx, i, stage, ctx.agent)
  if (E.isLeft(demos)) return demos
  const replayed = stage.replay === undefined ? E.right([]) : await Pretraining.transcripts(ctx.recipe, i, stage.replay)()
  if (E.isLeft(replayed)) return replayed
  const replay = Pretraining.samples(ctx, replayed.right)
  const samples = [...demos.right, ...replay]
  const tokens = samples.reduce((n, d) => n + Trajectory.length(d), 0)
  reporter.line(
    `${name}: ${demos.right.length} demonstrations${replay.length > 0 ? ` and ${replay.length} replayed pretraining transcripts` : ''}, ${tokens} tokens`
  )
  const checks: Check[] = []
  const failure: { error?: string } = {}
  const enough = stage.until === undefined ? undefined : untilChecks(ctx, i, stage.until, name, checks, failure)
  const sft = sftOptions(ctx, i, stage)
  const training = { ...Sft.defaultRunSettings, ...runSettings(stage), sft, label: 'sft steps' }
  const outcome = await train(ctx, i, name, training, samples, from.right, enough)
  if (E.isRight(outcome) && failure.error !== undefined) return E.left(failed(failure.error))
  const recorded = record(ctx, i, name, outcome, { from: from.right, tokens, epochs: sft.epochs, t0 })
  if (E.isLeft(recorded)) return recorded
  for (const check of checks) dir.appendMetrics({ kind: 'sft-check', stage: i, ...check })
  return E.right(undefined)
}

/** A stage's data-parallel replicas and checkpoint cadence, as it sets them. */
export const runSettings = (stage: Sft.RunSettings): Sft.RunSettings => ({
  ...(stage.replicas === undefined ? {} : { replicas: stage.replicas }),
  ...(stage.checkpointEvery === undefined ? {} : { checkpointEvery: stage.checkpointEvery })
})

/** The SFT options of stage `i`: the library's defaults under the stage's settings, seeded per stage. */
const sftOptions = (ctx: Context, i: number, stage: SftStage): Sft.Options => {
  const {
    kind: _k,
    env: _e,
    data: _d,
    until: _u,
    replay: _y,
    episodes: _n,
    detourRate: _r,
    maxDetours: _m,
    replicas: _p,
    checkpointEvery: _c,
    ...settings
  } = stage
  return { ...Sft.defaultOptions, ...settings, seed: ctx.recipe.seed + i }
}
