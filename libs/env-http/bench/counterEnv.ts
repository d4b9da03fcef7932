/**
 * The load test's environment: it counts its steps and echoes who it is, so every answer can
 * be checked for routing (`seed`), loss or duplication (`step`) and content (`action`).
 */
import { EnvError, type Env } from '@mtrl/core'
import * as TE from 'fp-ts/lib/TaskEither.js'

export const observation = (seed: number, step: number, action: string): string => `seed ${seed} step ${step} action ${action}`

export const make = (): Env.Env => {
  let seed: number | undefined
  let steps = 0
  const info = (): Env.StepInfo => ({ valid: true, score: steps, maxScore: 1_000_000 })
  return {
    spec: { name: 'counter', maxTurns: 1_000_000, actionFormat: 'Any text.' },
    reset: (s) => {
      seed = s
      steps = 0
      return TE.right({ goal: `count for ${s}`, text: observation(s, 0, ''), info: info() })
    },
    step: (action) => {
      if (seed === undefined) return TE.left(EnvError.notStarted('counter'))
      steps += 1
      return TE.right({ observation: observation(seed, steps, action), reward: 1, done: false, won: false, info: info() })
    },
    close: () => async () => {
      seed = undefined
    }
  }
}
