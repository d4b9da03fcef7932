/**
 * `mtrl play ENV`: play an environment in the terminal (or feed commands on stdin), see the
 * admissible commands, or watch the expert.
 */
import { EnvError, type Env } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { createInterface } from 'node:readline'
import { pipe } from 'fp-ts/lib/function.js'
import { failed, intFlag, parseFlags, type CliError, type Command } from '../Command.js'
import { envFlags, envFromFlags, envSource } from '../EnvFlags.js'

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
      out(`> ${command}${by}\n\n${step.right.observation}\n\n${statusLine(step.right.info, turn, admissible)}${done ? (step.right.won ? '\n*** You won! ***' : '\n*** You lost. ***') : ''}\n`)
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

export const playCommand: Command = {
  name: 'play',
  summary: 'play an environment in the terminal, or watch its expert',
  help: `mtrl play ENV [flags]

ENV is textworld, cooking, alfworld or swe. Type commands (or pipe them, one per line);
"quit" ends.

  textworld   --rooms 2 --objects 3 --quest 4 [--objective steps|brief|none] | --config w2-o3-q4
  cooking     --rewards sparse|balanced|dense --goal detailed|brief|none [--test]
  alfworld    --task pick_heat_then_place_in_recep --split train|valid-seen|valid-unseen
  swe         --tier easy|medium|hard
  all         --seed N  --admissible (list valid commands)  --expert (play the expert's plan)

Examples:
  mtrl play textworld --rooms 2 --objects 3 --quest 4 --seed 7 --admissible
  mtrl play textworld --config w2-o3-q4 --seed 7 --expert
  mtrl play alfworld --task pick_heat_then_place_in_recep --split valid-unseen --seed 3
  mtrl play swe --tier easy --seed 4 --expert`,
  run: (argv) => async () => {
    const parsed = pipe(
      parseFlags(argv, { seed: { type: 'string' }, admissible: { type: 'boolean' }, expert: { type: 'boolean' }, ...envFlags }, true),
      E.bindTo('flags'),
      E.bind('env', ({ flags }) => envFromFlags(flags.positionals[0], flags.values)),
      E.bind('seed', ({ flags }) => intFlag('seed', flags.values.seed, 0))
    )
    if (E.isLeft(parsed)) return parsed
    const { flags, env, seed } = parsed.right
    return play(envSource(env), seed, flags.values.admissible === true, flags.values.expert === true, (s) => process.stdout.write(`${s}\n`))
  }
}
