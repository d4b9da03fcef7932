import { Gae, Grpo } from '@mtrl/advantages'
import { Batch } from '@mtrl/rollout'
import { Arbitraries, expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { bootstraps, link } from '../../src/internal/link.js'
import * as Ppo from '../../src/Ppo.js'

beforeAll(() => TestBackend.use('cpu'))

const episodesOf = (trajectories: ReadonlyArray<import('@mtrl/core').Trajectory.Trajectory>) =>
  trajectories.map((t, i) => ({ rows: [i], turnRewards: t.turnRewards, groupId: t.groupId, bootstrap: t.truncated }))

describe('link', () => {
  it('observation and prompt tokens never receive loss: zero advantage and zero PPO gradient off the action mask', async () => {
    await expectNoLeak(() =>
      fc.assert(
        fc.property(fc.array(Arbitraries.trajectory(), { minLength: 1, maxLength: 5 }), (trajectories) => {
          const batch = Batch.make({ pad: 0 })(trajectories)
          const values = Float32Array.from({ length: batch.batch * batch.time }, (_, i) => Math.sin(i))
          const { advantages } = link(
            { batch, samples: trajectories, episodes: episodesOf(trajectories), values, valuesAfter: values },
            Gae.estimate({ gamma: 1, lambda: 0.9, whiten: false })
          )
          const shape: [number, number] = [batch.batch, batch.time]
          const init = tf.tensor2d(batch.samplerLogprobs, shape)
          const logprobs = tf.variable(init)
          init.dispose()
          const old = tf.tensor2d(batch.samplerLogprobs, shape)
          const adv = tf.tensor2d(advantages, shape)
          const mask = tf.tensor2d(batch.actionMask, shape)
          const { value, grads } = tf.variableGrads(() => Ppo.loss(Ppo.defaultOptions)({ logprobs, oldLogprobs: old, advantages: adv, mask }).loss, [logprobs])
          const g = grads[logprobs.name]!.dataSync()
          trajectories.forEach((trajectory, b) => {
            const kinds = trajectory.segments.flatMap((s) => Array.from(s.tokens, () => s.kind))
            for (let t = 0; t < batch.time; t++) {
              if (kinds[t] === 'action') continue
              expect(advantages[b * batch.time + t] === 0).toBe(true)
              expect(g[b * batch.time + t] === 0).toBe(true)
            }
          })
          tf.dispose([logprobs, old, adv, mask, value, ...Object.values(grads)])
        }),
        { numRuns: 50 }
      )
    )
  })

  it('links the per-turn samples of a windowed episode into one row (GRPO sees one outcome per episode)', () => {
    const sample = (turn: number, reward: number) => ({
      env: 'e',
      seed: 1,
      groupId: 'g',
      won: false,
      truncated: false,
      segments: [
        { kind: 'prompt' as const, turn: 0, tokens: Int32Array.of(1, 2) },
        { kind: 'action' as const, turn: 0, tokens: Int32Array.of(3, 4), logprobs: Float32Array.of(-1, -1) }
      ],
      turns: [{ action: `a${turn}`, reward, valid: true, parsed: true, score: 0, maxScore: 1 }],
      turnRewards: [reward]
    })
    const samples = [sample(0, 0), sample(1, 1), sample(0, 0), sample(1, 0)]
    const batch = Batch.make({ pad: 0 })(samples)
    const { advantages } = link(
      {
        batch,
        samples,
        episodes: [
          { rows: [0, 1], turnRewards: [0, 1], groupId: 'g', bootstrap: false },
          { rows: [2, 3], turnRewards: [0, 0], groupId: 'g', bootstrap: false }
        ]
      },
      Grpo.estimate({ normalizeByStd: false, epsilon: 1e-6 })
    )
    // episode returns 1 and 0: advantages +0.5 on every action token of the first, -0.5 on the second
    expect(Array.from(advantages)).toEqual([0, 0, 0.5, 0.5, 0, 0, 0.5, 0.5, 0, 0, -0.5, -0.5, 0, 0, -0.5, -0.5])
  })

  it('an episode that used its turn budget is a failure by default (return 0 after it), bootstrapped only when asked; a fixed-turn batch edge always bootstraps', () => {
    const table = (['done', 'turnLimit', 'contextLimit', 'slotBudget'] as const).map((ending) => [
      ending,
      bootstraps({ truncation: 'terminal' }, { ending }),
      bootstraps({ truncation: 'bootstrap' }, { ending })
    ])
    expect(table).toEqual([
      ['done', false, false],
      ['turnLimit', false, true],
      ['contextLimit', false, true],
      ['slotBudget', true, true]
    ])
    // a lost episode cut by the turn budget: prompt 1 | action 2 3 | observation 4 | action 5; V after the last token 0.8
    const lost = {
      env: 'e',
      seed: 1,
      groupId: 'g',
      won: false,
      truncated: true,
      segments: [
        { kind: 'prompt' as const, turn: 0, tokens: Int32Array.of(1) },
        { kind: 'action' as const, turn: 0, tokens: Int32Array.of(2, 3), logprobs: Float32Array.of(-1, -1) },
        { kind: 'observation' as const, turn: 0, tokens: Int32Array.of(4) },
        { kind: 'action' as const, turn: 1, tokens: Int32Array.of(5), logprobs: Float32Array.of(-1) }
      ],
      turns: [0, 1].map(() => ({ action: 'a', reward: 0, valid: false, parsed: true, score: 0, maxScore: 1 })),
      turnRewards: [0, 0]
    }
    const batch = Batch.make({ pad: 0 })([lost])
    const values = Float32Array.of(0, 0.5, 0.5, 0, 0.5)
    const valuesAfter = Float32Array.of(0.5, 0.5, 0, 0.5, 0.8)
    const estimator = Gae.estimate({ gamma: 1, lambda: 1, whiten: false })
    const run = (bootstrap: boolean) =>
      Array.from(
        link({ batch, samples: [lost], episodes: [{ rows: [0], turnRewards: [0, 0], groupId: 'g', bootstrap }], values, valuesAfter }, estimator).advantages
      )
    // terminal: A = 0 - V = -0.5 on every action token; bootstrapped: A = 0.8 - 0.5
    expect(run(false)).toEqual([0, -0.5, -0.5, 0, -0.5])
    expect(run(true).map((x) => Math.round(x * 1e6) / 1e6)).toEqual([0, 0.3, 0.3, 0, 0.3])
  })
})
