/**
 * Reading JSON input for commands: a file path, or standard input for `-`.
 *
 * @since 0.1.0
 */
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { readFile } from 'node:fs/promises'
import { usage, type CliError } from './Command.js'

const readStdin = async (): Promise<string> => {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * Reads and parses JSON from `path` (or stdin for `-`); unreadable or bad JSON is a usage error
 * naming the source.
 *
 * @category constructors
 * @since 0.1.0
 */
export const readJson =
  (path: string): TE.TaskEither<CliError, unknown> =>
  async () => {
    let text: string
    try {
      text = path === '-' ? await readStdin() : await readFile(path, 'utf8')
    } catch (e) {
      return E.left(usage(`cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`))
    }
    return E.tryCatch(
      () => JSON.parse(text) as unknown,
      (e) => usage(`${path === '-' ? 'standard input' : path} is not valid JSON: ${e instanceof Error ? e.message : String(e)}`)
    )
  }
