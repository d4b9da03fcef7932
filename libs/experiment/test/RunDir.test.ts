import { appendFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import * as _ from '../src/RunDir.js'

const root = mkdtempSync(join(tmpdir(), 'mtrl-rundir-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('RunDir', () => {
  it('creates <name>-<time> under runs/ with a checkpoints folder, the name made safe for a path', () => {
    const cwd = process.cwd()
    process.chdir(root)
    try {
      const run = _.create('my recipe/1', undefined, new Date('2026-11-30T10:15:00.123Z'))
      expect(run.path).toBe(join(root, 'runs', 'my_recipe_1-20261130-101500Z'))
      expect(existsSync(join(run.path, 'checkpoints'))).toBe(true)
    } finally {
      process.chdir(cwd)
    }
  })

  it('writes JSON atomically (no temp file left) and reads it back', () => {
    const run = _.create('x', join(root, 'json'))
    run.writeJson('a.json', { b: [1, 2] })
    expect(run.readJson('a.json')).toEqual({ b: [1, 2] })
    expect(readdirSync(run.path).sort()).toEqual(['a.json', 'checkpoints'])
  })

  it('appends metrics and reads them back, skipping a torn last line', () => {
    const run = _.create('x', join(root, 'metrics'))
    expect(run.readMetrics()).toEqual([])
    run.appendMetrics({ kind: 'rl', iteration: 0 })
    run.appendMetrics({ kind: 'rl', iteration: 1 })
    appendFileSync(run.file('metrics.jsonl'), '{"kind":"rl","itera')
    expect(run.readMetrics()).toEqual([
      { kind: 'rl', iteration: 0 },
      { kind: 'rl', iteration: 1 }
    ])
  })
})
