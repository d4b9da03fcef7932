import * as E from 'fp-ts/lib/Either.js'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Progress.js'
import * as RunDir from '../src/RunDir.js'

const root = mkdtempSync(join(tmpdir(), 'mtrl-progress-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('Progress', () => {
  it('reads the initial progress of a new run, and what was written', () => {
    const run = RunDir.create('p', join(root, 'rw'))
    expect(_.read(run)).toEqual(_.initial)
    const progress = { nextStage: 2, evals: [{ phase: 'before training', results: [] }], finished: false }
    _.write(run, progress)
    expect(_.read(run)).toEqual(progress)
  })

  it("finds the last finished stage's checkpoint, ignoring stages without an end", () => {
    const run = RunDir.create('p', join(root, 'final'))
    expect(_.finalCheckpoint(run)).toBeUndefined()
    mkdirSync(_.stageEnd(run, 0), { recursive: true })
    mkdirSync(_.stageEnd(run, 1), { recursive: true })
    mkdirSync(_.sftLatest(run, 2), { recursive: true })
    expect(_.finalCheckpoint(run)).toBe(join(run.path, 'checkpoints', 'stage-1', 'end'))
    _.removeSftLatest(run, 2)
    expect(_.finalCheckpoint(run)).toBe(_.stageEnd(run, 1))
  })

  it("names the model folder of a path: a run's last finished stage, any other folder itself, or why there is none", () => {
    const run = RunDir.create('p', join(root, 'model-folder'))
    writeFileSync(run.file('recipe.json'), '{}')
    expect(_.modelFolder(run.path)).toEqual(E.left(`${run.path} is a run with no finished stage`))
    mkdirSync(_.stageEnd(run, 0), { recursive: true })
    expect(_.modelFolder(run.path)).toEqual(E.right(_.stageEnd(run, 0)))
    expect(_.modelFolder(_.stageEnd(run, 0))).toEqual(E.right(_.stageEnd(run, 0)))
    expect(_.modelFolder(join(root, 'nothing'))).toEqual(E.left(`${join(root, 'nothing')}: no such folder`))
  })

  it('finds the run of a checkpoint inside it, and no run for a folder outside one', () => {
    const run = RunDir.create('p', join(root, 'of-checkpoint'))
    const iteration = join(_.stageDir(run, 1), 'iter-00000015')
    mkdirSync(iteration, { recursive: true })
    expect(_.runOfCheckpoint(iteration)).toBeUndefined()
    run.writeJson('recipe.json', { name: 'p', stages: [] })
    expect(_.runOfCheckpoint(iteration)?.path).toBe(run.path)
    expect(_.runOfCheckpoint(_.stageEnd(run, 0))?.path).toBe(run.path)
    expect(_.runOfCheckpoint(_.stageDir(run, 1))).toBeUndefined()
    expect(_.runOfCheckpoint(join(root, 'elsewhere', 'model'))).toBeUndefined()
  })

  it('keeps the metrics of saved work: evaluations of recorded phases, finished stages, RL iterations before the checkpoint', () => {
    const run = RunDir.create('p', join(root, 'truncate'))
    const records = [
      { kind: 'eval', phase: 'before training' },
      { kind: 'sft', stage: 0, step: 0 },
      { kind: 'eval', phase: 'after stage 1' },
      { kind: 'rl', stage: 1, iteration: 0 },
      { kind: 'rl', stage: 1, iteration: 1 },
      { kind: 'rl', stage: 1, iteration: 2 }
    ]
    for (const r of records) run.appendMetrics(r)
    _.truncateMetrics(run, { nextStage: 1, evals: [{ phase: 'before training', results: [] }], finished: false }, 2)
    expect(run.readMetrics()).toEqual([records[0], records[1], records[3], records[4]])
    _.truncateMetrics(run, { nextStage: 1, evals: [], finished: false }, 0)
    expect(run.readMetrics()).toEqual([records[1]])
  })
})
