import { TestBackend } from '@mtrl/testing'
import { beforeAll, describe, expect, it } from 'vitest'
import { learn, makeToyRun, toyConfig } from './fixtures/toyRun.js'

beforeAll(() => TestBackend.use('cpu'))

// A freshly initialised tiny policy (15 tokens, d = 16, one layer), trained from scratch on
// a three-turn corridor where only the first action matters and the reward comes at the end,
// so credit must flow back across turns.
describe('Trainer learns the corridor', () => {
  for (const algorithm of ['ppo', 'grpo', 'rloo', 'reinforce++'] as const)
    it(`${algorithm} goes from chance to >= 95% success within 40 iterations`, async () => {
      const run = makeToyRun(toyConfig(algorithm, 'corridor'), 'corridor', 0)
      try {
        const { iterations, history } = await learn(run, 40)
        expect(iterations, history.map((m) => m['episode/success_rate'].toFixed(2)).join(' ')).toBeLessThanOrEqual(40)
        expect(history[0]!['episode/success_rate']).toBeLessThan(0.5)
      } finally {
        run.dispose()
      }
    })
})
