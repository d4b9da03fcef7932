/**
 * Where a run is, saved atomically after every stage and every RL checkpoint: the next stage
 * to run and the evaluations done so far. `mtrl resume` continues from it.
 */
import { existsSync } from 'node:fs'
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
