/**
 * An SFT stage: demonstrations (the environment's expert, or a JSONL file), then `Sft.trainAsync`
 * with data-parallel replicas and mid-stage checkpoints; its metrics go to the run folder.
 */
import { Rng, Trajectory } from '@mtrl/core'
import { Progress } from '@mtrl/experiment'
import { Agent, PolicyError } from '@mtrl/policy'
import { Checkpointing, Demonstrations, ExpertData, Replicas, Sft } from '@mtrl/trainer-sft'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { readFile } from 'node:fs/promises'
import { failed, stopped, type CliError } from '../Command.js'
import type { MakeBar } from '../ProgressBar.js'
import * as ReplicaBackend from '../ReplicaBackend.js'
import type { SftStage } from '../recipe/Recipe.js'
import { policyError } from './Model.js'
import { noBar, rolloutOptions, type Context } from './Stages.js'

/** The demonstrations of a stage: from a JSONL file in the OpenAI chat format (each must fit the context), or from the expert. */
const demonstrations = async (ctx: Context, i: number, stage: SftStage, agent: Agent.Agent): Promise<E.Either<CliError, ReadonlyArray<Trajectory.Trajectory>>> => {
  const renderer = { template: agent.template, tokenizer: agent.tokenizer }
  if (stage.data !== undefined) {
    const path = stage.data
    const text = await readFile(path, 'utf8').then(E.right, (e: Error) => E.left(failed(`cannot read ${path}: ${e.message}`)))
    if (E.isLeft(text)) return text
    const parsed = ExpertData.fromChatJsonl(renderer)(text.right)
    if (E.isLeft(parsed)) return E.left(failed(`${stage.data}: ${parsed.left}`))
    return E.mapLeft((e: Demonstrations.DemoError) => failed(`${stage.data}: ${Demonstrations.message(e)}`))(Demonstrations.fitting(agent.contextLength)(parsed.right))
  }
  const source = ctx.stageSources[i]!
  const rollout = rolloutOptions(source, ctx.recipe.rollout, undefined)
  const { episodes, detourRate, maxDetours } = { ...Demonstrations.defaultSettings, ...stage }
  const options = { systemPrompt: rollout.systemPrompt, actionFormat: rollout.actionFormat, maxTurns: rollout.maxTurns, episodes, detourRate, maxDetours, contextLength: agent.contextLength }
  const demos = await Demonstrations.fromExpert(options, renderer)(source, Rng.make(ctx.recipe.seed * 7919 + i + 1))()
  return E.mapLeft((e: Demonstrations.DemoError) => failed(Demonstrations.message(e)))(demos)
}

/** The mid-stage checkpoint to continue from, when resuming and there is one. */
const continuation = async (ctx: Context, i: number): Promise<E.Either<CliError, O.Option<{ readonly agent: Agent.Agent; readonly snapshot: Sft.Snapshot }>>> => {
  if (!ctx.resume) return E.right(O.none)
  const dir = Progress.sftLatest(ctx.run, i)
  const loaded = await Checkpointing.load(dir)()
  if (E.isLeft(loaded)) return E.left(failed(Checkpointing.message(loaded.left)))
  if (O.isNone(loaded.right)) return E.right(O.none)
  const { policy, snapshot } = loaded.right.value
  return E.map((agent: Agent.Agent) => O.some({ agent, snapshot }))(E.mapLeft(policyError)(Agent.fromPolicy(PolicyError.fileError(dir, 'the checkpoint has no tokenizer'), policy)))
}

/**
 * Runs SFT stage `i` on the context's agent, in place (a resumed stage continues from its
 * checkpoint's agent, which replaces it). Stopped on request after writing a checkpoint.
 */
export const run = async (ctx: Context, i: number, stage: SftStage, name: string): Promise<E.Either<CliError, void>> => {
  const { run: dir, reporter } = ctx
  if (ctx.resume) Progress.truncateMetrics(dir, { ...ctx.progress, nextStage: i }, 0)
  const t0 = performance.now()
  const continued = await continuation(ctx, i)
  if (E.isLeft(continued)) return continued
  const from = O.toUndefined(continued.right)
  if (from !== undefined) {
    ctx.agent.dispose()
    ctx.agent = from.agent
    reporter.line(`${name}: resuming after step ${from.snapshot.steps.length}`)
  }
  const agent = ctx.agent
  const demos = await demonstrations(ctx, i, stage, agent)
  if (E.isLeft(demos)) return demos
  const tokens = demos.right.reduce((n, d) => n + Trajectory.length(d), 0)
  reporter.line(`${name}: ${demos.right.length} demonstrations, ${tokens} tokens`)
  const { replicas, checkpointEvery } = { ...Sft.defaultRunSettings, ...stage }
  const pool = await Replicas.start(agent.policy, replicas - 1, ReplicaBackend.init(ctx.backend.name))
  if (pool.size > 0) reporter.line(`${name}: ${pool.size + 1} data-parallel replicas (workers on ${pool.backends.join(', ')})`)
  let bar: ReturnType<MakeBar> | undefined
  let taken = from?.snapshot.steps.length ?? 0
  const saveTo = Progress.sftLatest(dir, i)
  // a checkpoint that cannot be written stops the stage (at once) and fails the run
  let unsaved: Checkpointing.CheckpointError | undefined
  const save = async (snapshot: Sft.Snapshot): Promise<void> => {
    const saved = await Checkpointing.save(saveTo)(agent.policy, snapshot)()
    if (E.isLeft(saved)) unsaved = saved.left
  }
  const stop = (): boolean => unsaved !== undefined || ctx.stop.requested()
  const onStep = (m: Sft.StepMetrics, steps: number): void => {
    taken = m.step + 1
    bar ??= (reporter.bar ?? noBar)(`${name}: sft steps`, steps)
    bar.update(m.step + 1, `loss ${m['loss/sft'].toFixed(3)}`)
  }
  const options = { ...Sft.defaultOptions, ...sftSettings(stage), seed: ctx.recipe.seed + i }
  let result: Sft.Result | undefined
  try {
    result = await Sft.trainAsync(options)(agent.policy)(demos.right, { onStep }, pool, stop, { ...(from === undefined ? {} : { from: from.snapshot }), every: checkpointEvery, save })
  } finally {
    await pool.dispose()
  }
  bar?.stop()
  if (unsaved !== undefined) return E.left(failed(`${name}: ${Checkpointing.message(unsaved)}`))
  if (result === undefined) return E.left(stopped(`stopped during ${name} after step ${taken} (checkpoint written); continue with: mtrl resume ${dir.path}`))
  for (const step of result.steps) dir.appendMetrics({ kind: 'sft', stage: i, ...step })
  for (const epoch of result.epochs) {
    dir.appendMetrics({ kind: 'sft-epoch', stage: i, ...epoch })
    reporter.line(`${name}: epoch ${epoch.epoch + 1} loss ${epoch['loss/train'].toFixed(4)} held-out ${epoch['loss/heldout'].toFixed(4)}`)
  }
  const seconds = (performance.now() - t0) / 1000
  // a resumed stage ran only the steps after its checkpoint
  const share = (result.steps.length - (from?.snapshot.steps.length ?? 0)) / Math.max(1, result.steps.length)
  reporter.line(`${name}: done in ${seconds.toFixed(1)} s (${((tokens * options.epochs * share) / seconds).toFixed(0)} tokens/s)`)
  return E.right(undefined)
}

/** The SFT options a stage sets (the rest are the library's defaults). */
const sftSettings = (stage: SftStage): Sft.Settings => {
  const { kind: _k, env: _e, data: _d, episodes: _n, detourRate: _r, maxDetours: _m, replicas: _p, checkpointEvery: _c, ...settings } = stage
  return settings
}
