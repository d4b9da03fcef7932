/**
 * `mtrl play ENV`: play an environment in the terminal (or feed commands on stdin), see the
 * admissible commands, or watch the expert.
 */
import { EnvError, type Env } from '@mtrl/core'
import { Session } from '@mtrl/eval'
import * as E from 'fp-ts/lib/Either.js'
import { createInterface } from 'node:readline'
import { bool, failed, int, make, type CliError } from '../Command.js'
import { envFlags, envFlagsHelp, envNames, openEnv } from '../EnvFlags.js'

/** A game from stdin's lines (a terminal shows `> ` when it waits), or by the expert; the source is disposed after. */
const play = async (source: Env.EnvSource, values: { seed: number; admissible?: boolean; expert?: boolean }): Promise<E.Either<CliError, number>> => {
  const tty = process.stdin.isTTY === true
  const lines = values.expert === true ? undefined : createInterface({ input: process.stdin, terminal: tty })
  const out = (s: string) => void process.stdout.write(`${s}\n\n`)
  const prompt = () => void (tty && process.stdout.write('> '))
  const played = await Session.play(source, { ...values, out, prompt })(lines ?? [])().finally(() => (lines?.close(), source.dispose()))
  return E.bimap(
    (e: EnvError.EnvError) => failed(EnvError.message(e)),
    () => 0
  )(played)
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
      return play(opened.right, values)
    }
})
