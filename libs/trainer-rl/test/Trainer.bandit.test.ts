import { TestBackend } from '@mtrl/testing'
import { beforeAll, describe, expect, it } from 'vitest'
import { learn, makeToyRun, toyConfig } from './fixtures/toyRun.js'

beforeAll(() => TestBackend.use('cpu'))

// A freshly initialised tiny policy (15 tokens, d = 16, one layer), trained from scratch on
// a two-armed bandit in one turn.
describe('Trainer learns the bandit', () => {
  for (const algorithm of ['ppo', 'grpo', 'rloo', 'reinforce++', 'gspo', 'cispo'] as const)
    it(`${algorithm} goes from chance to >= 95% success within 40 iterations`, async () => {
      const run = makeToyRun(toyConfig(algorithm, 'bandit'), 'bandit', 0)
      try {
        const { iterations, history } = await learn(run, 40)
        expect(iterations, history.map((m) => m['episode/success_rate'].toFixed(2)).join(' ')).toBeLessThanOrEqual(40)
        expect(history[0]!['episode/success_rate']).toBeLessThan(0.5)
      } finally {
        run.dispose()
      }
    })
})
