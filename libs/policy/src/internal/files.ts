/**
 * File helpers returning TaskEither: read JSON / bytes, write a directory atomically.
 */
import * as TE from 'fp-ts/lib/TaskEither.js'
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { fileError, invalidSafetensors, type PolicyError } from '../PolicyError.js'
import * as Safetensors from '../Safetensors.js'

const reason = (e: unknown): string => (e instanceof Error ? e.message : String(e))

export const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false
  )

export const readBytes = (path: string): TE.TaskEither<PolicyError, Uint8Array> =>
  TE.tryCatch(
    async () => new Uint8Array(await readFile(path)),
    (e) => fileError(path, reason(e))
  )

export const readText = (path: string): TE.TaskEither<PolicyError, string> =>
  TE.tryCatch(
    () => readFile(path, 'utf8'),
    (e) => fileError(path, reason(e))
  )

export const readJson = (path: string): TE.TaskEither<PolicyError, unknown> =>
  TE.tryCatch(
    async () => JSON.parse(await readFile(path, 'utf8')) as unknown,
    (e) => fileError(path, reason(e))
  )

/** Reads and decodes a safetensors file; decoding failures name the file. */
export const loadSafetensors =
  (path: string): TE.TaskEither<PolicyError, Safetensors.File> =>
  async () => {
    const bytes = await readBytes(path)()
    if (bytes._tag === 'Left') return bytes
    const decoded = Safetensors.decode(bytes.right)
    return decoded._tag === 'Left' ? { _tag: 'Left', left: invalidSafetensors(path, decoded.left) } : decoded
  }

/**
 * Writes `files` (name -> contents) into `dir` atomically: everything goes to a temporary
 * sibling directory first, which then replaces `dir` by rename. A crash leaves either the old
 * directory or the new one, never a mix.
 */
export const writeDirAtomic = (dir: string, files: ReadonlyMap<string, Uint8Array | string>): TE.TaskEither<PolicyError, void> =>
  TE.tryCatch(
    async () => {
      const parent = dirname(dir)
      await mkdir(parent, { recursive: true })
      const stamp = `${process.pid}-${Date.now()}-${Math.floor(Math.random() * 1e9)}`
      const tmp = join(parent, `.${basename(dir)}.tmp-${stamp}`)
      await mkdir(tmp)
      try {
        for (const [name, contents] of files) await writeFile(join(tmp, name), contents)
        if (await exists(dir)) {
          const old = join(parent, `.${basename(dir)}.old-${stamp}`)
          await rename(dir, old)
          await rename(tmp, dir)
          await rm(old, { recursive: true, force: true })
        } else await rename(tmp, dir)
      } catch (e) {
        await rm(tmp, { recursive: true, force: true })
        throw e
      }
    },
    (e) => fileError(dir, reason(e))
  )
