/**
 * Where a run is, saved atomically after every stage and every RL checkpoint: the next stage
 * to run and the evaluations done so far. `mtrl resume` continues from it.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Summary } from '@mtrl/eval'
import type { RunDir } from './RunDir.js'

export interface PhaseEval {
  readonly phase: string
  readonly results: ReadonlyArray<Summary.Summary>
}

export interface Progress {
  /** Index of the first stage not finished. */
  readonly nextStage: number
  readonly evals: ReadonlyArray<PhaseEval>
  readonly finished: boolean
}

export const initial: Progress = { nextStage: 0, evals: [], finished: false }

export const read = (run: RunDir): Progress => (existsSync(run.file('progress.json')) ? (run.readJson('progress.json') as Progress) : initial)

export const write = (run: RunDir, progress: Progress): void => run.writeJson('progress.json', progress)

/** The folder of a stage's checkpoints: RL iterations inside, the stage's end as `end/`. */
export const stageDir = (run: RunDir, stage: number): string => join(run.file('checkpoints'), `stage-${stage}`)
export const stageEnd = (run: RunDir, stage: number): string => join(stageDir(run, stage), 'end')
/** The folder of an SFT stage's mid-stage checkpoint (removed once the stage's end is saved). */
export const sftLatest = (run: RunDir, stage: number): string => join(stageDir(run, stage), 'sft-latest')

/** The last finished stage's checkpoint of a run, if any. */
export const finalCheckpoint = (run: RunDir): string | undefined => {
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

/** Removes an SFT stage's mid-stage checkpoint once the stage's end is saved. */
export const removeSftLatest = (run: RunDir, stage: number): void => rmSync(sftLatest(run, stage), { recursive: true, force: true })
