import { describe, expect, it } from 'vitest'
import { OverSeeds } from '@mtrl/eval'
import * as _ from '../src/Ablation.js'

const rlRun = (stage: number, successes: ReadonlyArray<number>): Array<Record<string, unknown>> =>
  successes.map((y, i) => ({ kind: 'rl', stage, iteration: i, 'episode/success_rate': y, 'episode/return': Number.NaN }))

describe('Ablation', () => {
  it('summarises seeds with mean, sample std and the 95% interval over seeds and games (OverSeeds), inside [0, 1]', () => {
    const row = (successRate: number, episodes = 100) => [
      { env: 'e', successRate, episodes, ci95: { low: 0, high: 1 }, turnsMean: 1, returnMean: 0, invalidRate: 0, perTaskType: {} }
    ]
    const [r] = _.rows([
      { cell: 'a', seed: 1, final: row(0.5) },
      { cell: 'a', seed: 2, final: row(0.7) }
    ])
    expect(r!.mean).toBeCloseTo(0.6)
    expect(r!.std).toBeCloseTo(Math.sqrt(0.02))
    expect(r!.ci95).toEqual(OverSeeds.interval(100)([0.5, 0.7]).ci95)
    // docs/results.md's Dr. GRPO row: a t-interval over three priors ran to 108.6%
    const [high] = _.rows([0.91, 0.75, 0.91].map((rate, seed) => ({ cell: 'b', seed, final: row(rate) })))
    expect(high!.ci95.high).toBeLessThanOrEqual(1)
    expect(high!.ci95.low).toBeLessThan(high!.mean)
    // fewer than two games has no interval to give
    expect(_.rows([{ cell: 'c', seed: 1, final: row(1, 1) }])[0]!.ci95).toEqual({ low: 0, high: 1 })
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
    const ci95 = { low: 0.25, high: 0.75 }
    const text = _.table([
      { cell: 'algorithm=ppo', env: 'tw', seeds: 2, mean: 0.5, std: 0.125, ci95, values: [0.375, 0.625] },
      { cell: 'algorithm=grpo', env: 'tw', seeds: 1, mean: 0.5, std: 0, ci95, values: [0.5] }
    ])
    expect(text.split('\n')).toEqual([
      `${'cell'.padEnd(44)} ${'env'.padEnd(30)} success (mean [95% interval over seeds and games] ± std over seeds)`,
      `${'algorithm=ppo'.padEnd(44)} ${'tw'.padEnd(30)} 50.0% [25.0, 75.0] ± 12.5 (n=2)`,
      `${'algorithm=grpo'.padEnd(44)} ${'tw'.padEnd(30)} 50.0% [25.0, 75.0] ± 0.0 (n=1: one seed)`
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
      [{ cell: 'ppo', env: 'textworld/w2-o3-q4', mean: 0.875, std: 0.02, ci95: { low: 0.8, high: 0.92 }, seeds: 3 }],
      [{ cell: 'ppo', seed: 1, metrics: rlRun(1, [0.5, 0.7]) }]
    )
    expect(html).toContain('87.5% [80.0, 92.0] ± 2.0 (n=3)')
    expect(html.match(/<canvas/g)?.length).toBe(1)
  })
})
