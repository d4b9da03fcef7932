/**
 * File helpers returning TaskEither: read JSON / bytes, write a directory atomically.
 */
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { mkdir, open, readFile, rename, rm, stat, writeFile, type FileHandle } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { fileError, invalidSafetensors, type PolicyError } from '../PolicyError.js'
import * as Safetensors from '../Safetensors.js'

const reason = (e: unknown): string => (e instanceof Error ? e.message : String(e))

export const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false
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

/** `length` bytes of an open file from `position`, into `into` (a fresh buffer by default). */
const readRange = async (handle: FileHandle, position: number, length: number, into = new Uint8Array(length)): Promise<Uint8Array> => {
  for (let done = 0; done < length;) {
    const { bytesRead } = await handle.read(into, done, Math.min(length - done, 1 << 30), position + done)
    if (bytesRead === 0) throw new Error(`the file ends before byte ${position + length}`)
    done += bytesRead
  }
  return into
}

/** A tensor read from its own bytes: float32 straight into its array (no copy), others decoded. */
const readTensor = async (handle: FileHandle, placed: Safetensors.Placed): Promise<Safetensors.Entry> => {
  const length = placed.end - placed.begin
  if (placed.dtype !== 'F32') return Safetensors.tensor(placed, await readRange(handle, placed.begin, length))
  const data = new Float32Array(length / 4)
  await readRange(handle, placed.begin, length, new Uint8Array(data.buffer))
  return { dtype: 'F32', shape: placed.shape, data }
}

/**
 * Reads and decodes a safetensors file tensor by tensor, in the file's order, handing each to
 * `f` as it is read (any size: a single read stops at 2 GiB; the file is never held whole, and
 * a tensor `f` does not keep can be collected before the next is read). Reading stops at the
 * first error `f` returns, which is returned; read failures name the file. Returns the file's
 * metadata.
 */
export const eachSafetensor =
  (path: string, f: (name: string, entry: Safetensors.Entry) => E.Either<PolicyError, void>): TE.TaskEither<PolicyError, Readonly<Record<string, string>>> =>
  async () => {
    let handle: FileHandle | undefined
    try {
      handle = await open(path, 'r')
      const size = (await handle.stat()).size
      const length = Safetensors.headerLength(await readRange(handle, 0, Math.min(8, size)))
      if (length._tag === 'Left') return { _tag: 'Left', left: invalidSafetensors(path, length.left) }
      if (8 + length.right > size)
        return { _tag: 'Left', left: invalidSafetensors(path, `header length ${length.right} beyond the end of the file (${size} bytes)`) }
      const header = Safetensors.header(await readRange(handle, 8, length.right), size)
      if (header._tag === 'Left') return { _tag: 'Left', left: invalidSafetensors(path, header.left) }
      for (const placed of header.right.tensors) {
        const done = f(placed.name, await readTensor(handle, placed))
        if (done._tag === 'Left') return done
      }
      return { _tag: 'Right', right: header.right.metadata }
    } catch (e) {
      return { _tag: 'Left', left: fileError(path, reason(e)) }
    } finally {
      await handle?.close()
    }
  }

/** Reads and decodes a whole safetensors file, tensor by tensor (see {@link eachSafetensor}). */
export const loadSafetensors =
  (path: string): TE.TaskEither<PolicyError, Safetensors.File> =>
  async () => {
    const tensors = new Map<string, Safetensors.Entry>()
    const read = await eachSafetensor(path, (name, entry) => E.right(void tensors.set(name, entry)))()
    return read._tag === 'Left' ? read : { _tag: 'Right', right: { tensors, metadata: read.right } }
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
