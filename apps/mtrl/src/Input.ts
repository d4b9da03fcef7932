/**
 * Reading JSON input for commands: a file path, or standard input for `-`.
 */
import { readFile } from 'node:fs/promises'
import { UsageError } from './Command.js'

const readStdin = async (): Promise<string> => {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/** Reads and parses JSON from `path` (or stdin for `-`); bad JSON is a UsageError naming the source. */
export const readJson = async (path: string): Promise<unknown> => {
  let text: string
  try {
    text = path === '-' ? await readStdin() : await readFile(path, 'utf8')
  } catch (e) {
    throw new UsageError(`cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`)
  }
  try {
    return JSON.parse(text)
  } catch (e) {
    throw new UsageError(`${path === '-' ? 'standard input' : path} is not valid JSON: ${e instanceof Error ? e.message : String(e)}`)
  }
}
