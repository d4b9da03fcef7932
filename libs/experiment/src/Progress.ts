/**
 * Where a run is, saved atomically after every stage and every RL checkpoint: the next stage
 * to run and the evaluations done so far; the layout of its checkpoints; and which metrics of a
 * resumed run are kept (those of saved work). `mtrl resume` continues from it.
 *
 * @since 0.1.0
 */
import type { Summary } from '@mtrl/eval'
import * as E from 'fp-ts/lib/Either.js'
import { existsSync, readdirSync, rmSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import * as RunDir from './RunDir.js'

/**
 * The evaluations of one phase (`before training`, `after stage 1 (...)`).
 *
 * @category models
 * @since 0.1.0
 */
export interface PhaseEval {
  readonly phase: string
  readonly results: ReadonlyArray<Summary.Summary>
}

/**
 * A run's progress (`progress.json`).
 *
 * @category models
 * @since 0.1.0
 */
export interface Progress {
  /** Index of the first stage not finished. */
  readonly nextStage: number
  readonly evals: ReadonlyArray<PhaseEval>
  readonly finished: boolean
}

/** @category constructors @since 0.1.0 */
export const initial: Progress = { nextStage: 0, evals: [], finished: false }

/** A run's progress (`initial` when it has none yet). @category constructors @since 0.1.0 */
export const read = (run: RunDir.RunDir): Progress => (existsSync(run.file('progress.json')) ? (run.readJson('progress.json') as Progress) : initial)

/** Saves a run's progress atomically. @category utils @since 0.1.0 */
export const write = (run: RunDir.RunDir, progress: Progress): void => run.writeJson('progress.json', progress)

/** The folder of a stage's checkpoints: RL iterations inside, the stage's end as `end/`. @category destructors @since 0.1.0 */
export const stageDir = (run: RunDir.RunDir, stage: number): string => join(run.file('checkpoints'), `stage-${stage}`)

/** The checkpoint of a finished stage. @category destructors @since 0.1.0 */
export const stageEnd = (run: RunDir.RunDir, stage: number): string => join(stageDir(run, stage), 'end')

/** The folder of an SFT stage's mid-stage checkpoint (removed once the stage's end is saved). @category destructors @since 0.1.0 */
export const sftLatest = (run: RunDir.RunDir, stage: number): string => join(stageDir(run, stage), 'sft-latest')

/**
 * The last finished stage's checkpoint of a run, if any.
 *
 * @category destructors
 * @since 0.1.0
 */
export const finalCheckpoint = (run: RunDir.RunDir): string | undefined => {
  const dir = run.file('checkpoints')
  const stages = existsSync(dir)
    ? readdirSync(dir)
        .map((n) => /^stage-(\d+)$/.exec(n)?.[1])
        .filter((n): n is string => n !== undefined)
        .map(Number)
        .filter((i) => existsSync(stageEnd(run, i)))
    : []
  return stages.length === 0 ? undefined : stageEnd(run, Math.max(...stages))
}

/**
 * The model folder a path names: a run folder (it holds `recipe.json`) names its last finished
 * stage's checkpoint; any other existing folder (a checkpoint, a Hugging Face folder) itself.
 * `Left` says why there is none.
 *
 * @example
 * import { Progress } from '@mtrl/experiment'
 * Progress.modelFolder('runs/default-20261204-101500Z') // Right('runs/default-.../checkpoints/stage-1/end')
 *
 * @category destructors
 * @since 0.5.0
 */
export const modelFolder = (path: string): E.Either<string, string> => {
  if (!existsSync(path)) return E.left(`${path}: no such folder`)
  if (!existsSync(join(path, 'recipe.json'))) return E.right(path)
  const final = finalCheckpoint(RunDir.open(path))
  return final === undefined ? E.left(`${path} is a run with no finished stage`) : E.right(final)
}

/**
 * The run a checkpoint folder belongs to (`<run>/checkpoints/stage-N/<checkpoint>`, with the
 * run's `recipe.json`), if it is one of a run's.
 *
 * @category destructors
 * @since 0.1.0
 */
export const runOfCheckpoint = (checkpoint: string): RunDir.RunDir | undefined => {
  const stage = dirname(resolve(checkpoint))
  const checkpoints = dirname(stage)
  const path = dirname(checkpoints)
  const inRun = /^stage-\d+$/.test(basename(stage)) && basename(checkpoints) === 'checkpoints' && existsSync(join(path, 'recipe.json'))
  return inRun ? RunDir.open(path) : undefined
}

/** Removes an SFT stage's mid-stage checkpoint once the stage's end is saved. @category utils @since 0.1.0 */
export const removeSftLatest = (run: RunDir.RunDir, stage: number): void => rmSync(sftLatest(run, stage), { recursive: true, force: true })

/**
 * Keeps the metrics of work that is saved: evaluations of phases in `progress`, records of
 * finished stages, and RL iterations before `iteration` of stage `progress.nextStage` (a
 * resumed run redoes what came after its checkpoint, and logs it again).
 *
 * @category utils
 * @since 0.1.0
 */
export const truncateMetrics = (run: RunDir.RunDir, progress: Progress, iteration: number): void => {
  const phases = new Set(progress.evals.map((e) => e.phase))
  const kept = run.readMetrics().filter((r) => {
    if (r['kind'] === 'eval') return phases.has(r['phase'] as string)
    const stage = r['stage'] as number
    return stage < progress.nextStage || (stage === progress.nextStage && r['kind'] === 'rl' && (r['iteration'] as number) < iteration)
  })
  run.writeText('metrics.jsonl', kept.map((r) => `${JSON.stringify(r)}\n`).join(''))
}
