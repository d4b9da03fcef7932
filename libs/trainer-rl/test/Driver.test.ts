import type { Env } from '@mtrl/core'
import { Rollout } from '@mtrl/rollout'
import { TestBackend, Toy } from '@mtrl/testing'
import * as E from 'fp-ts/lib/Either.js'
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Checkpointing from '../src/Checkpointing.js'
import * as _ from '../src/Driver.js'
import { timing } from '../src/Metrics.js'
import { makeToyRun, template, toyConfig } from './fixtures/toyRun.js'

beforeAll(() => TestBackend.use('cpu'))
const root = mkdtempSync(join(tmpdir(), 'mtrl-driver-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const config = toyConfig('grpo', 'bandit', { checkpointEvery: 2 })
const comparable = (m: object) => Object.fromEntries(Object.entries(m).filter(([k]) => !timing.includes(k)))
const source: Env.EnvSource = { name: 'bandit', maxTurns: 1, make: () => Toy.bandit(), dispose: () => undefined }

describe('Driver', () => {
  it("iterates to the budget, hands each iteration's metrics over, and checkpoints every checkpointEvery iterations", async () => {
    const run = makeToyRun(config, 'bandit')
    const dir = join(root, 'finished')
    const seen: number[] = []
    const outcome = await _.run({ iterations: 5, dir, resume: false, onIteration: (m, i) => seen.push(m.iteration, i) })(run.trainer)()
    run.dispose()
    expect(outcome).toEqual(E.right({ _tag: 'Finished' }))
    expect(seen).toEqual([0, 1, 1, 2, 2, 3, 3, 4, 4, 5])
    expect(readdirSync(dir).sort()).toEqual([Checkpointing.dirName(2), Checkpointing.dirName(4)])
  })

  it('stops on request after writing a checkpoint, and a resumed trainer continues with the metrics of an uninterrupted run', async () => {
    const reference = makeToyRun(config, 'bandit')
    const expected: object[] = []
    await _.run({ iterations: 3, dir: join(root, 'reference'), resume: false, onIteration: (m) => expected.push(comparable(m)) })(reference.trainer)()
    reference.dispose()

    const dir = join(root, 'stopped')
    const first = makeToyRun(config, 'bandit')
    const logged: object[] = []
    const stopped = await _.run({ iterations: 3, dir, resume: false, stop: () => logged.length === 1, onIteration: (m) => logged.push(comparable(m)) })(
      first.trainer
    )()
    first.dispose()
    expect(stopped).toEqual(E.right({ _tag: 'Stopped', iteration: 1 }))
    expect(readdirSync(dir)).toEqual([Checkpointing.dirName(1)])

    const second = makeToyRun(config, 'bandit')
    const resumedAt: number[] = []
    const finished = await _.run({ iterations: 3, dir, resume: true, onResume: (at) => resumedAt.push(at), onIteration: (m) => logged.push(comparable(m)) })(
      second.trainer
    )()
    second.dispose()
    expect(finished).toEqual(E.right({ _tag: 'Finished' }))
    expect(resumedAt).toEqual([1])
    expect(logged).toEqual(expected)
  })

  it('reports a checkpoint that cannot be written as a Left', async () => {
    const run = makeToyRun(config, 'bandit')
    const file = join(root, 'a-file')
    writeFileSync(file, '')
    const outcome = await _.run({ iterations: 2, dir: join(file, 'below'), resume: false })(run.trainer)()
    run.dispose()
    expect(E.isLeft(outcome) && outcome.left._tag).toBe('Checkpoint')
    if (E.isLeft(outcome)) expect(_.message(outcome.left)).not.toBe('')
  })

  it('checks that a reply fits after the first prompt, naming the sizes when it does not', async () => {
    const rollout = { ...Rollout.defaultOptions, systemPrompt: '', maxNewTokens: 4 }
    const start = await Toy.bandit().reset(0)()
    if (E.isLeft(start)) throw new Error('reset failed')
    const { tokens } = Rollout.firstPrompt(rollout, template, 1_000)(start.right)
    expect(await _.checkContext(rollout, template, tokens.length + 4)(source)()).toEqual(E.right(undefined))
    const short = await _.checkContext(rollout, template, tokens.length + 3)(source)()
    expect(short).toEqual(E.left({ _tag: 'ContextTooShort', env: 'bandit', promptTokens: tokens.length, maxNewTokens: 4, contextLength: tokens.length + 3 }))
    if (E.isLeft(short)) expect(_.message(short.left)).toContain(`has ${tokens.length} tokens; with maxNewTokens 4`)
  })
})
