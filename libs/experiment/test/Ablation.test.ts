import { describe, expect, it } from 'vitest'
import * as _ from '../src/Ablation.js'

const rlRun = (stage: number, successes: ReadonlyArray<number>): Array<Record<string, unknown>> =>
  successes.map((y, i) => ({ kind: 'rl', stage, iteration: i, 'episode/success_rate': y, 'episode/return': Number.NaN }))

describe('Ablation', () => {
  it('summarises seeds with mean and sample std', () => {
    const row = (successRate: number) => [
      { env: 'e', successRate, episodes: 1, ci95: { low: 0, high: 1 }, turnsMean: 1, returnMean: 0, invalidRate: 0, perTaskType: {} }
    ]
    const [r] = _.rows([
      { cell: 'a', seed: 1, final: row(0.5) },
      { cell: 'a', seed: 2, final: row(0.7) }
    ])
    expect(r!.mean).toBeCloseTo(0.6)
    expect(r!.std).toBeCloseTo(Math.sqrt(0.02))
  })

  it('makes one row per cell and environment, in order of appearance', () => {
    const summary = (env: string, successRate: number) => ({
      env,
      successRate,
      episodes: 1,
      ci95: { low: 0, high: 1 },
      turnsMean: 1,
      returnMean: 0,
      invalidRate: 0,
      perTaskType: {}
    })
    const table = _.rows([
      { cell: 'a', seed: 1, final: [summary('x', 1), summary('y', 0)] },
      { cell: 'b', seed: 1, final: [summary('x', 0.25)] }
    ])
    expect(table.map((r) => [r.cell, r.env, r.seeds, r.mean, r.std])).toEqual([
      ['a', 'x', 1, 1, 0],
      ['a', 'y', 1, 0, 0],
      ['b', 'x', 1, 0.25, 0]
    ])
  })

  it('the table has a header and one line per row, success in % with its std and seeds', () => {
    const text = _.table([{ cell: 'algorithm=ppo', env: 'tw', seeds: 2, mean: 0.5, std: 0.125, values: [0.375, 0.625] }])
    expect(text.split('\n')).toEqual([
      `${'cell'.padEnd(44)} ${'env'.padEnd(30)} success (mean ± std over seeds)`,
      `${'algorithm=ppo'.padEnd(44)} ${'tw'.padEnd(30)} 50.0% ± 12.5 (n=2)`
    ])
  })

  it("a cell's curve is the mean over its seeds, per iteration, of the last RL stage, cut to the iterations every seed reached", () => {
    const runs = [
      { cell: 'ppo', seed: 1, metrics: [...rlRun(1, [9, 9]), ...rlRun(2, [0.2, 0.4, 0.6])] },
      { cell: 'ppo', seed: 2, metrics: rlRun(2, [0.4, 0.6]) },
      { cell: 'grpo', seed: 1, metrics: rlRun(2, [0.1, 0.1, 0.1]) }
    ]
    const curves = _.cellCurves(runs, 'episode/success_rate')
    expect(curves.map((c) => c.label)).toEqual(['ppo (2 seeds)', 'grpo (1 seed)'])
    expect(curves[0]!.data.map((p) => p.x)).toEqual([1, 2])
    expect(curves[0]!.data[0]!.y).toBeCloseTo(0.3, 10)
    expect(curves[0]!.data[1]!.y).toBeCloseTo(0.5, 10)
    expect(curves[1]!.data).toHaveLength(3)
    // a metric no run logged as a number draws nothing
    expect(_.cellCurves(runs, 'episode/return')).toEqual([])
  })

  it('the page has the final table and one chart per logged curve', () => {
    const html = _.render(
      'rl-lift: ablation',
      [{ cell: 'ppo', env: 'textworld/w2-o3-q4', mean: 0.875, std: 0.02, seeds: 3 }],
      [{ cell: 'ppo', seed: 1, metrics: rlRun(1, [0.5, 0.7]) }]
    )
    expect(html).toContain('87.5% ± 2.0')
    expect(html.match(/<canvas/g)?.length).toBe(1)
  })
})
