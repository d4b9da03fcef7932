/**
 * A recipe, end to end: build the agent, evaluate it, run each stage (SFT or RL) with its own
 * environment, evaluate after each, and write everything into the run folder.
 */
import type { Backend } from '@mtrl/backend'
import { EnvError, Rng, type Env, type Trajectory } from '@mtrl/core'
import { Evaluate, type Summary } from '@mtrl/eval'
import { ChatTemplate, Checkpoint, Critic, PolicyError, Sampler } from '@mtrl/policy'
import { Checkpointing, Trainer } from '@mtrl/trainer-rl'
import { Runner } from '@mtrl/rollout-queue'
import { Replicas, Sft } from '@mtrl/trainer-sft'
import * as ReplicaBackend from '../ReplicaBackend.js'
import * as E from 'fp-ts/lib/Either.js'
import { label, source } from '../recipe/EnvConfig.js'
import type { Resolved, Stage } from '../recipe/Recipe.js'
import * as Agent from './Agent.js'
import type { MakeBar } from '../ProgressBar.js'
import * as Progress from './Progress.js'
import * as Report from './Report.js'
import type { RunDir } from './RunDir.js'
import * as SftCheckpoint from './SftCheckpoint.js'
import { generatorFor, makeTrainer, rolloutOptions, sftData, sftOptions } from './Stages.js'

export interface Reporter {
  /** A line of progress for people. */
  readonly line: (text: string) => void
  /** A progress bar (ETA on a terminal, plain lines otherwise). */
  readonly bar?: MakeBar
  /** On a terminal: bars replace the per-iteration lines. */
  readonly interactive?: boolean
}

const noBar: MakeBar = () => ({ update: () => undefined, stop: () => undefined })

export type PhaseEval = Progress.PhaseEval

/** Set by Ctrl-C: the run stops at the next checkpoint. */
export interface StopSignal {
  readonly requested: () => boolean
}

export const never: StopSignal = { requested: () => false }

/** Thrown when a run stopped on request after writing its checkpoint. */
export class Stopped extends Error {
  override readonly name = 'Stopped'
}

export interface Summary {
  readonly run: string
  readonly backend: Backend.Selected
  readonly evals: ReadonlyArray<PhaseEval>
  readonly seconds: number
}

export const stageName = (stage: Stage, i: number): string => `stage ${i + 1} (${stage.kind} on ${label(stage.env)})`

/** Evaluates the agent on every evaluation environment. */
export const evaluateAll = async (
  agent: Agent.Agent,
  recipe: Resolved,
  sources: ReadonlyArray<Env.EnvSource>,
  onEpisode?: (episode: Trajectory.Trajectory) => void
): Promise<ReadonlyArray<Summary.Summary>> => {
  const session = Sampler.make(agent.policy, { slots: recipe.eval.batch, maxLen: agent.contextLength })
  try {
    const out: Summary.Summary[] = []
    for (const [i, s] of sources.entries()) {
      const { episodes, seedBase, temperature, batch } = recipe.eval
      const options = { episodes, seedBase, temperature, batch, rollout: rolloutOptions(s, recipe.rollout, undefined), seed: recipe.seed + 1000 + i }
      const result = await Evaluate.run({ ...options, ...(onEpisode === undefined ? {} : { onEpisode }) })(generatorFor(agent, session))(s)()
      if (E.isLeft(result)) throw new Error(`evaluation on ${s.name}: ${JSON.stringify(result.left)}`)
      out.push(result.right)
    }
    return out
  } finally {
    session.dispose()
  }
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`

/** One line per evaluation environment. */
export const formatEval = (results: ReadonlyArray<Summary.Summary>): string =>
  results
    .map((r) => `  ${r.env.padEnd(34)} success ${pct(r.successRate).padStart(6)} [${pct(r.ci95.low)}, ${pct(r.ci95.high)}]  turns ${r.turnsMean.toFixed(1)}  invalid ${pct(r.invalidRate)}`)
    .join('\n')

const loadAgent = async (dir: string): Promise<Agent.Agent> => {
  const loaded = await Checkpoint.load(dir)()
  if (E.isLeft(loaded)) throw new Error(PolicyError.message(loaded.left))
  const { policy, critic } = loaded.right
  if (policy.tokenizer === undefined) throw new Error(`${dir}: the checkpoint has no tokenizer`)
  return Agent.fromParts(policy, critic, policy.tokenizer, ChatTemplate.make(policy.tokenizer), policy.config.maxLen)
}

const saveAgent = async (dir: string, agent: Agent.Agent, extra: unknown): Promise<void> => {
  const saved = await Checkpoint.save(dir, { policy: agent.policy, ...(agent.critic === undefined ? {} : { critic: agent.critic }), extra })()
  if (E.isLeft(saved)) throw new Error(PolicyError.message(saved.left))
}

/** Keeps the metrics of work that is saved: finished stages, and RL iterations before `iteration` of `stage`. */
const truncateMetrics = (run: RunDir, progress: Progress.Progress, iteration: number): void => {
  const phases = new Set(progress.evals.map((e) => e.phase))
  const kept = run.readMetrics().filter((r) => {
    if (r['kind'] === 'eval') return phases.has(r['phase'] as string)
    const stage = r['stage'] as number
    return stage < progress.nextStage || (stage === progress.nextStage && r['kind'] === 'rl' && (r['iteration'] as number) < iteration)
  })
  run.writeText('metrics.jsonl', kept.map((r) => `${JSON.stringify(r)}\n`).join(''))
}

/**
 * Runs a resolved recipe into `run`, or continues it (`resume`) from its last checkpoint:
 * finished stages are skipped, an RL stage continues from its last iteration checkpoint with
 * the same random streams, an SFT stage from its last mid-stage checkpoint (every
 * `checkpointEvery` steps) with the same data order. With `stop` requested (Ctrl-C) it writes a
 * checkpoint after the current iteration or step and throws {@link Stopped}. With `queue`, RL
 * episodes are played by the queue's workers (same trajectories for the same seed).
 */
export const train = async (
  recipe: Resolved,
  run: RunDir,
  backend: Backend.Selected,
  reporter: Reporter,
  resume = false,
  stop: StopSignal = never,
  queue?: Runner.Runner
): Promise<Summary> => {
  const started = performance.now()
  const stageHandles = recipe.stages.map((s) => source(s.env))
  const evalHandles = recipe.eval.envs.map(source)
  let progress = resume ? Progress.read(run) : Progress.initial
  const evals: PhaseEval[] = [...progress.evals]
  let agent: Agent.Agent
  if (progress.nextStage > 0) {
    agent = await loadAgent(Progress.stageEnd(run, progress.nextStage - 1))
    reporter.line(`resuming at stage ${progress.nextStage + 1} of ${recipe.stages.length}`)
  } else if (recipe.model.kind === 'scratch') {
    reporter.line(`building the agent (word tokenizer from ${recipe.model.corpusEpisodes} expert episodes per environment)`)
    agent = await Agent.scratch(recipe.model, [...stageHandles, ...evalHandles], recipe.seed)
  } else {
    agent = await Agent.pretrained(recipe.model)
  }
  reporter.line(`model: ${agent.policy.config.layers} layers, d ${agent.policy.config.dModel}, vocab ${agent.tokenizer.vocabSize}, context ${agent.contextLength}`)
  const evalPhase = async (phase: string): Promise<void> => {
    if (evals.some((e) => e.phase === phase)) return
    const t0 = performance.now()
    const results = await evaluateAll(agent, recipe, evalHandles)
    evals.push({ phase, results })
    run.appendMetrics({ kind: 'eval', phase, results, seconds: (performance.now() - t0) / 1000 })
    progress = { ...progress, evals }
    Progress.write(run, progress)
    reporter.line(`eval ${phase} (${((performance.now() - t0) / 1000).toFixed(1)} s):\n${formatEval(results)}`)
  }
  try {
    if (resume) truncateMetrics(run, progress, Number.POSITIVE_INFINITY)
    if (recipe.evalAfterEachStage) await evalPhase('before training')
    for (let i = progress.nextStage; i < recipe.stages.length; i++) {
      const stage = recipe.stages[i]!
      const h = stageHandles[i]!
      const name = stageName(stage, i)
      const stageRng = Rng.make(recipe.seed * 7919 + i + 1)
      const rollout = rolloutOptions(h, recipe.rollout, stage.kind === 'rl' ? stage.rollout : undefined)
      if (stage.kind === 'sft') {
        if (resume) truncateMetrics(run, { ...progress, nextStage: i }, 0)
        const t0 = performance.now()
        const snapshotDir = SftCheckpoint.dirOf(Progress.stageDir(run, i))
        const continued = resume ? await SftCheckpoint.load(snapshotDir) : undefined
        if (continued !== undefined) {
          agent.dispose()
          agent = continued.agent
          reporter.line(`${name}: resuming after step ${continued.snapshot.steps.length}`)
        }
        const demos = await sftData(agent, h, stage, rollout, stageRng)
        const tokens = demos.reduce((n, d) => n + d.segments.reduce((m, s) => m + s.tokens.length, 0), 0)
        reporter.line(`${name}: ${demos.length} demonstrations, ${tokens} tokens`)
        let bar: ReturnType<MakeBar> | undefined
        const pool = await Replicas.start(agent.policy, (stage.replicas ?? 1) - 1, ReplicaBackend.init(backend.name))
        if (pool.size > 0) reporter.line(`${name}: ${pool.size + 1} data-parallel replicas (workers on ${pool.backends.join(', ')})`)
        let result: Sft.Result | undefined
        let taken = continued?.snapshot.steps.length ?? 0
        const trainer = agent
        try {
          result = await Sft.trainAsync(sftOptions(stage, recipe.seed + i))(trainer.policy)(
            demos,
            {
              onStep: (m, steps) => {
                taken = m.step + 1
                bar ??= (reporter.bar ?? noBar)(`${name}: sft steps`, steps)
                bar.update(m.step + 1, `loss ${m['loss/sft'].toFixed(3)}`)
              }
            },
            pool,
            stop.requested,
            {
              ...(continued === undefined ? {} : { from: continued.snapshot }),
              every: stage.checkpointEvery ?? 200,
              save: (snapshot) => SftCheckpoint.save(snapshotDir, trainer, snapshot)
            }
          )
        } finally {
          await pool.dispose()
        }
        bar?.stop()
        if (result === undefined) throw new Stopped(`stopped during ${name} after step ${taken} (checkpoint written); continue with: mtrl resume ${run.path}`)
        for (const step of result.steps) run.appendMetrics({ kind: 'sft', stage: i, ...step })
        for (const epoch of result.epochs) {
          run.appendMetrics({ kind: 'sft-epoch', stage: i, ...epoch })
          reporter.line(`${name}: epoch ${epoch.epoch + 1} loss ${epoch['loss/train'].toFixed(4)} held-out ${epoch['loss/heldout'].toFixed(4)}`)
        }
        const seconds = (performance.now() - t0) / 1000
        // a resumed stage ran only the steps after its checkpoint
        const share = (result.steps.length - (continued?.snapshot.steps.length ?? 0)) / Math.max(1, result.steps.length)
        reporter.line(`${name}: done in ${seconds.toFixed(1)} s (${((tokens * (stage.epochs ?? 3) * share) / seconds).toFixed(0)} tokens/s)`)
      } else {
        if ((stage.algorithm ?? 'ppo') === 'ppo' && agent.critic === undefined) {
          // The critic starts as a copy of the policy's trunk as it is now (after SFT), as in the paper's PPO.
          agent = Agent.fromParts(agent.policy, Critic.make(agent.policy, { shareTrunk: recipe.critic.shareTrunk }, recipe.seed + 7), agent.tokenizer, agent.template, agent.contextLength)
        }
        const play = queue && Runner.asRollout(queue, { env: stage.env, rollout, policy: agent.policy, contextLength: agent.contextLength, envName: h.name })
        const trainer = makeTrainer(agent, h, stage, rollout, recipe.seed + 100 * (i + 1), play)
        const dir = Progress.stageDir(run, i)
        try {
          if (resume) {
            const at = await Checkpointing.resume(dir)(trainer)()
            if (E.isLeft(at)) throw new Error(Checkpointing.message(at.left))
            truncateMetrics(run, { ...progress, nextStage: i }, at.right)
            if (at.right > 0) reporter.line(`${name}: resumed after iteration ${at.right}`)
          }
          const bar = (reporter.bar ?? noBar)(`${name}: iterations`, stage.iterations)
          while (trainer.state.iteration < stage.iterations) {
            const metrics = await Trainer.iterate(trainer)()
            if (E.isLeft(metrics)) throw new Error(EnvError.message(metrics.left))
            const m = metrics.right
            run.appendMetrics({ kind: 'rl', stage: i, ...m })
            bar.update(trainer.state.iteration, `success ${pct(m['episode/success_rate'] ?? 0)} return ${(m['episode/return'] ?? 0).toFixed(3)}`)
            if (reporter.interactive !== true) reporter.line(
              `${name}: iter ${trainer.state.iteration}/${stage.iterations} success ${pct(m['episode/success_rate'] ?? 0)} return ${(m['episode/return'] ?? 0).toFixed(3)} turns ${(m['episode/turns'] ?? 0).toFixed(1)} ` +
                `loss/policy ${(m['loss/policy'] ?? 0).toFixed(4)} loss/value ${(m['loss/value'] ?? 0).toFixed(4)} entropy ${(m['entropy/mean'] ?? 0).toFixed(3)} ` +
                `(${(m['time/rollout_s'] ?? 0).toFixed(1)}+${(m['time/update_s'] ?? 0).toFixed(1)} s)`
            )
            const due = recipe.checkpointEvery > 0 && trainer.state.iteration % recipe.checkpointEvery === 0
            if (due || stop.requested()) {
              const saved = await Checkpointing.save(dir)(trainer)()
              if (E.isLeft(saved)) throw new Error(Checkpointing.message(saved.left))
            }
            if (stop.requested()) bar.stop()
            if (stop.requested()) throw new Stopped(`stopped after ${name} iteration ${trainer.state.iteration}; continue with: mtrl resume ${run.path}`)
          }
          bar.stop()
        } finally {
          trainer.dispose()
          await Promise.all(trainer.setup.envs.map((env) => env.close()()))
        }
      }
      await saveAgent(Progress.stageEnd(run, i), agent, { stage: i })
      progress = { ...progress, nextStage: i + 1 }
      Progress.write(run, progress)
      if (stage.kind === 'sft') SftCheckpoint.remove(SftCheckpoint.dirOf(Progress.stageDir(run, i)))
      if (recipe.evalAfterEachStage || i === recipe.stages.length - 1) await evalPhase(`after ${name}`)
      if (stop.requested() && i < recipe.stages.length - 1) throw new Stopped(`stopped after ${name}; continue with: mtrl resume ${run.path}`)
    }
  } finally {
    agent.dispose()
    for (const h of [...stageHandles, ...evalHandles]) h.dispose()
  }
  progress = { ...progress, finished: true }
  Progress.write(run, progress)
  const summary = { run: run.path, backend, evals, seconds: (performance.now() - started) / 1000 }
  run.writeJson('eval.json', summary)
  Report.write(run, `mtrl run ${recipe.name}`)
  return summary
}
