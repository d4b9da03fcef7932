/**
 * `mtrl play ENV`: play an environment in the terminal (or feed commands on stdin), see the
 * admissible commands, or watch the expert.
 */
import { EnvError, type Env } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { createInterface } from 'node:readline'
import { bool, failed, int, make, type CliError } from '../Command.js'
import { envFlags, envFlagsHelp, envNames, openEnv } from '../EnvFlags.js'

const statusLine = (info: Env.StepInfo, turn: number, admissible: boolean): string => {
  const line = `[score ${info.score}/${info.maxScore}, turn ${turn}${info.valid ? '' : ', invalid'}]`
  return admissible && info.admissibleActions !== undefined ? `${line}\n[admissible: ${info.admissibleActions.join(' | ')}]` : line
}

const play = async (h: Env.EnvSource, seed: number, admissible: boolean, expert: boolean, out: (s: string) => void): Promise<E.Either<CliError, number>> => {
  const env = h.make()
  try {
    const start = await env.reset(seed)()
    if (E.isLeft(start)) return E.left(failed(EnvError.message(start.left)))
    out(`${h.name}, seed ${seed}\n\n${start.right.goal}\n\n${start.right.text}\n\n${statusLine(start.right.info, 0, admissible)}\n`)
    let turn = 0
    let done = false
    const act = async (command: string, by: string): Promise<E.Either<CliError, void>> => {
      const step = await env.step(command)()
      if (E.isLeft(step)) return E.left(failed(EnvError.message(step.left)))
      turn += 1
      done = step.right.done
      out(
        `> ${command}${by}\n\n${step.right.observation}\n\n${statusLine(step.right.info, turn, admissible)}${done ? (step.right.won ? '\n*** You won! ***' : '\n*** You lost. ***') : ''}\n`
      )
      return E.right(undefined)
    }
    if (expert) {
      const plan = h.expertPlan?.(env) ?? []
      out(`expert plan (${plan.length} steps): ${plan.join(' ; ')}\n`)
      for (const command of plan) {
        const acted = done ? E.right(undefined) : await act(command, '  (expert)')
        if (E.isLeft(acted)) return acted
      }
      return E.right(0)
    }
    const lines = createInterface({ input: process.stdin, terminal: process.stdin.isTTY === true })
    if (process.stdin.isTTY) process.stdout.write('> ')
    for await (const line of lines) {
      const command = line.trim()
      if (command === '') continue
      if (command === 'quit' || command === 'exit') break
      const acted = await act(command, '')
      if (E.isLeft(acted)) return acted
      if (done || turn >= h.maxTurns) break
      if (process.stdin.isTTY) process.stdout.write('> ')
    }
    lines.close()
    return E.right(0)
  } finally {
    await env.close()()
    h.dispose()
  }
}

export const playCommand = make({
  name: 'play',
  summary: 'play an environment in the terminal, or watch its expert',
  help: `mtrl play ENV [flags]

ENV is ${envNames()}. Type commands (or pipe them, one per line);
"quit" ends.

${envFlagsHelp}
  all         --seed N  --admissible (list valid commands)  --expert (play the expert's plan)

Examples:
  mtrl play textworld --rooms 2 --objects 3 --quest 4 --seed 7 --admissible
  mtrl play textworld --config w2-o3-q4 --seed 7 --expert
  mtrl play alfworld --task pick_heat_then_place_in_recep --split valid-unseen --seed 3
  mtrl play swe --tier easy --seed 4 --expert`,
  flags: { seed: int(0), admissible: bool, expert: bool, ...envFlags },
  positionals: true,
  run:
    ({ values, positionals }) =>
    async () => {
      const opened = openEnv(positionals[0], values)
      if (E.isLeft(opened)) return opened
      return play(opened.right, values.seed, values.admissible === true, values.expert === true, (s) => process.stdout.write(`${s}\n`))
    }
})
