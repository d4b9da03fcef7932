/**
 * `mtrl failures FILE...`: why a policy lost its TextWorld games, from `mtrl eval --transcripts`
 * files: the app reads the files; each episode is replayed, counted and reported by
 * `FailureReport` of `@mtrl/env-textworld`.
 */
import { Decode } from '@mtrl/core'
import { FailureReport, type Diagnosis } from '@mtrl/env-textworld'
import { Transcript } from '@mtrl/eval'
import * as E from 'fp-ts/lib/Either.js'
import { readFile } from 'node:fs/promises'
import { bool, make, usage, type CliError } from '../Command.js'

interface Read {
  readonly file: string
  readonly env: string
  readonly diagnosis: Diagnosis.Diagnosis
  readonly won: boolean
}

/** Each transcript line replayed against its game, or a usage error naming the file and line. */
const readAll = async (files: ReadonlyArray<string>): Promise<E.Either<CliError, ReadonlyArray<Read>>> => {
  const out: Read[] = []
  for (const file of files) {
    let text: string
    try {
      text = await readFile(file, 'utf8')
    } catch (e) {
      return E.left(usage(`${file}: ${e instanceof Error ? e.message : String(e)}`))
    }
    for (const [i, raw] of text.split('\n').entries()) {
      if (raw.trim() === '') continue
      const where = `${file}:${i + 1}`
      let json: unknown
      try {
        json = JSON.parse(raw)
      } catch {
        return E.left(usage(`${where}: not a JSON line (expected a transcript of mtrl eval --transcripts)`))
      }
      const line = Decode.decode(`transcript (${where})`, Transcript.Line)(json)
      if (E.isLeft(line)) return E.left(usage(Decode.formatError(line.left)))
      const { env, seed, turns, won } = line.right
      const diagnosis = FailureReport.diagnoseEpisode(
        env,
        seed,
        turns.map((t) => t.action)
      )
      if (E.isLeft(diagnosis)) return E.left(usage(`${where}: ${diagnosis.left}`))
      out.push({ file, env, diagnosis: diagnosis.right, won })
    }
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
      if (E.isLeft(read)) return read
      const groups = [...new Map(read.right.map((r) => [`${r.file}\u0000${r.env}`, { file: r.file, env: r.env }])).values()]
      const tallies = groups.map(({ file, env }) => ({ file, env, ...FailureReport.summarise(read.right.filter((r) => r.file === file && r.env === env)) }))
      if (values.json === true) {
        process.stdout.write(`${JSON.stringify(tallies, null, 2)}\n`)
        return E.right(0)
      }
      for (const { file, env, ...summary } of tallies) process.stdout.write(`${FailureReport.format(`${file}, ${env}`, summary).join('\n')}\n`)
      return E.right(0)
    }
})
