/**
 * `mtrl failures FILE...`: why a policy lost its TextWorld games, from `mtrl eval --transcripts`
 * files: the app reads the files; each episode is replayed, counted and reported by
 * `FailureReport` of `@mtrl/env-textworld`.
 */
import { FailureReport } from '@mtrl/env-textworld'
import { Transcript } from '@mtrl/eval'
import * as E from 'fp-ts/lib/Either.js'
import { readFile } from 'node:fs/promises'
import { bool, make, usage, type CliError } from '../Command.js'

/** Every transcript of the files, each with its file; an unreadable file or a bad line is a usage error naming it. */
const readAll = async (files: ReadonlyArray<string>): Promise<E.Either<CliError, ReadonlyArray<Transcript.Transcript & { readonly file: string }>>> => {
  const out: Array<Transcript.Transcript & { readonly file: string }> = []
  for (const file of files) {
    const text = await readFile(file, 'utf8').then(E.right, (e: unknown) => E.left(usage(`${file}: ${e instanceof Error ? e.message : String(e)}`)))
    const lines = E.chain((t: string) => E.mapLeft(usage)(Transcript.parse(file, t)))(text)
    if (E.isLeft(lines)) return lines
    out.push(...lines.right.map((line) => ({ ...line, file })))
  }
  return E.right(out)
}

export const failures = make({
  name: 'failures',
  summary: 'why a policy lost its TextWorld games (from eval transcripts)',
  help: `mtrl failures FILE... [--json]

Reads transcripts written by mtrl eval --transcripts FILE, replays every episode against its
TextWorld game and finds its first mistake: the first command that does not bring the
shortest winning plan one command closer. Prints, per file and environment, the lost games counted by
the kind of their first mistake:
  unknown-name  names something the game does not have (a word not copied right)
  unparsed      not a command of the grammar
  elsewhere     names things out of reach (a goal step in the wrong room, or before fetching)
  not-ready     within reach, but its condition fails (putting what it does not hold)
  no-exit       walks where there is no exit
  detour        a valid command that is no step (the wrong container, the wrong way)
how many won games recovered from a mistake, and the success per quest ending (the verb of
the quest's last command: put, insert, eat). --json prints the counts as JSON.

Examples:
  mtrl eval --run runs/default-20261130-101500Z --transcripts eval.jsonl && mtrl failures eval.jsonl
  mtrl failures before.jsonl after.jsonl --json`,
  flags: { json: bool },
  positionals: true,
  run:
    ({ values, positionals }) =>
    async () => {
      if (positionals.length === 0) return E.left(usage('which transcript files? (from mtrl eval --transcripts FILE)'))
      const read = await readAll(positionals)
      const reported = E.chain((lines: ReadonlyArray<Transcript.Transcript & { readonly file: string }>) =>
        E.mapLeft(usage)(FailureReport.report(lines.map((l) => ({ ...l, commands: l.turns.map((t) => t.action) }))))
      )(read)
      if (E.isLeft(reported)) return reported
      const tallies = reported.right
      if (values.json === true) {
        process.stdout.write(`${JSON.stringify(tallies, null, 2)}\n`)
        return E.right(0)
      }
      for (const { file, env, ...summary } of tallies) process.stdout.write(`${FailureReport.format(`${file}, ${env}`, summary).join('\n')}\n`)
      return E.right(0)
    }
})
