/**
 * A recipe, end to end: build the agent, evaluate it, run each stage (SFT or RL) with its own
 * environment, evaluate after each, and write everything into the run folder.
 */
import type { Backend } from '@mtrl/backend'
import { EnvError, Rng } from '@mtrl/core'
import { Sampler } from '@mtrl/policy'
import { Trainer } from '@mtrl/trainer-rl'
import { Sft } from '@mtrl/trainer-sft'
import * as E from 'fp-ts/lib/Either.js'
import { handle, type EnvHandle } from '../recipe/EnvConfig.js'
import type { Resolved, Stage } from '../recipe/Recipe.js'
import * as Agent from './Agent.js'
import { evaluate, type EvalResult } from './Evaluate.js'
import type { RunDir } from './RunDir.js'
import { generatorFor, makeTrainer, rolloutOptions, sftData, sftOptions } from './Stages.js'

export interface Reporter {
  /** A line of progress for people. */
  readonly line: (text: string) => void
}

export interface PhaseEval {
  readonly phase: string
  readonly results: ReadonlyArray<EvalResult>
}

export interface Summary {
  readonly run: string
  readonly backend: Backend.Selected
  readonly evals: ReadonlyArray<PhaseEval>
  readonly seconds: number
}

const stageName = (stage: Stage, i: number): string => `stage ${i + 1} (${stage.kind} on ${handle(stage.env).name})`

/** Evaluates the agent on every evaluation environment. */
export const evaluateAll = async (agent: Agent.Agent, recipe: Resolved, handles: ReadonlyArray<EnvHandle>): Promise<ReadonlyArray<EvalResult>> => {
  const session = Sampler.make(agent.policy, { slots: recipe.eval.batch, maxLen: agent.contextLength })
  try {
    const out: EvalResult[] = []
    for (const [i, h] of handles.entries()) {
      const rollout = rolloutOptions(h, recipe.rollout, undefined)
      out.push(
        await evaluate(generatorFor(agent, session), h, {
          episodes: recipe.eval.episodes,
          seedBase: recipe.eval.seedBase,
          temperature: recipe.eval.temperature,
          batch: recipe.eval.batch,
          rollout,
          seed: recipe.seed + 1000 + i
        })
      )
    }
    return out
  } finally {
    session.dispose()
  }
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`

/** One line per evaluation environment. */
export const formatEval = (results: ReadonlyArray<EvalResult>): string =>
  results
    .map((r) => `  ${r.env.padEnd(34)} success ${pct(r.successRate).padStart(6)} [${pct(r.ci95.low)}, ${pct(r.ci95.high)}]  turns ${r.turnsMean.toFixed(1)}  invalid ${pct(r.invalidRate)}`)
    .join('\n')

/** Runs a resolved recipe into `run`. */
export const train = async (recipe: Resolved, run: RunDir, backend: Backend.Selected, reporter: Reporter): Promise<Summary> => {
  const started = performance.now()
  const stageHandles = recipe.stages.map((s) => handle(s.env))
  const evalHandles = recipe.eval.envs.map(handle)
  const rng = Rng.make(recipe.seed)
  const evals: PhaseEval[] = []
  const needsCritic = recipe.stages.some((s) => s.kind === 'rl' && (s.algorithm ?? 'ppo') === 'ppo')
  if (recipe.model.kind !== 'scratch') throw new Error('pretrained models in recipes: not yet wired')
  reporter.line(`building the agent (word tokenizer from ${recipe.model.corpusEpisodes} expert episodes per environment)`)
  const agent = await Agent.scratch(recipe.model, [...stageHandles, ...evalHandles], needsCritic, recipe.seed)
  reporter.line(`model: ${agent.policy.config.layers} layers, d ${agent.policy.config.dModel}, vocab ${agent.tokenizer.vocabSize}, context ${agent.contextLength}`)
  const evalPhase = async (phase: string): Promise<void> => {
    const t0 = performance.now()
    const results = await evaluateAll(agent, recipe, evalHandles)
    evals.push({ phase, results })
    run.appendMetrics({ kind: 'eval', phase, results, seconds: (performance.now() - t0) / 1000 })
    reporter.line(`eval ${phase} (${((performance.now() - t0) / 1000).toFixed(1)} s):\n${formatEval(results)}`)
  }
  try {
    if (recipe.evalAfterEachStage) await evalPhase('before training')
    for (const [i, stage] of recipe.stages.entries()) {
      const h = stageHandles[i]!
      const name = stageName(stage, i)
      const stageRng = rng.split()
      const rollout = rolloutOptions(h, recipe.rollout, stage.kind === 'rl' ? stage.rollout : undefined)
      if (stage.kind === 'sft') {
        const t0 = performance.now()
        const demos = await sftData(agent, h, stage, rollout, stageRng)
        const tokens = demos.reduce((n, d) => n + d.segments.reduce((m, s) => m + s.tokens.length, 0), 0)
        reporter.line(`${name}: ${demos.length} demonstrations, ${tokens} tokens`)
        const result = Sft.train(sftOptions(stage, recipe.seed + i))(agent.policy)(demos)
        for (const step of result.steps) run.appendMetrics({ kind: 'sft', stage: i, ...step })
        for (const epoch of result.epochs) {
          run.appendMetrics({ kind: 'sft-epoch', stage: i, ...epoch })
          reporter.line(`${name}: epoch ${epoch.epoch + 1} loss ${epoch['loss/train'].toFixed(4)} held-out ${epoch['loss/heldout'].toFixed(4)}`)
        }
        const seconds = (performance.now() - t0) / 1000
        reporter.line(`${name}: done in ${seconds.toFixed(1)} s (${(tokens * (stage.epochs ?? 3) / seconds).toFixed(0)} tokens/s)`)
      } else {
        const trainer = makeTrainer(agent, h, stage, rollout, recipe.seed + 100 * (i + 1))
        try {
          for (let it = 0; it < stage.iterations; it++) {
            const metrics = await Trainer.iterate(trainer)()
            if (E.isLeft(metrics)) throw new Error(EnvError.message(metrics.left))
            run.appendMetrics({ kind: 'rl', stage: i, ...metrics.right })
            const m = metrics.right
            reporter.line(
              `${name}: iter ${it + 1}/${stage.iterations} success ${pct(m['episode/success_rate'] ?? 0)} return ${(m['episode/return'] ?? 0).toFixed(3)} turns ${(m['episode/turns'] ?? 0).toFixed(1)} ` +
                `loss/policy ${(m['loss/policy'] ?? 0).toFixed(4)} loss/value ${(m['loss/value'] ?? 0).toFixed(4)} entropy ${(m['entropy/mean'] ?? 0).toFixed(3)} ` +
                `(${(m['time/rollout_s'] ?? 0).toFixed(1)}+${(m['time/update_s'] ?? 0).toFixed(1)} s)`
            )
          }
        } finally {
          trainer.dispose()
          await Promise.all(trainer.setup.envs.map((env) => env.close()()))
        }
      }
      if (recipe.evalAfterEachStage || i === recipe.stages.length - 1) await evalPhase(`after ${name}`)
    }
  } finally {
    agent.dispose()
    for (const h of [...stageHandles, ...evalHandles]) h.dispose()
  }
  const summary = { run: run.path, backend, evals, seconds: (performance.now() - started) / 1000 }
  run.writeJson('eval.json', summary)
  return summary
}
