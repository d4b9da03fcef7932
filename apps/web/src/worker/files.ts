/**
 * Checkpoint folders in and out of the worker's in-memory file system: a folder as a zip (to
 * download), and dropped files (a checkpoint folder's files, or a zip of the folder) as a folder.
 */
import { unzipSync, zipSync } from 'fflate'
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { DroppedFile } from './protocol.js'

/** The files of `dir`, by path relative to it. */
export const folderFiles = (dir: string, prefix = ''): Record<string, Uint8Array> =>
  Object.fromEntries(
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name)
      return statSync(path).isDirectory()
        ? Object.entries(folderFiles(path, `${prefix}${name}/`))
        : [[`${prefix}${name}`, new Uint8Array(readFileSync(path) as Uint8Array)]]
    })
  )

/** `dir` as a zip whose entries are its files. */
export const zipFolder = (dir: string): Uint8Array => zipSync(folderFiles(dir))

/** The files a checkpoint folder needs, by their base names. */
const required = ['config.json', 'model.safetensors']

const isZip = (bytes: Uint8Array): boolean => bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04

const baseName = (path: string): string => path.split('/').pop() ?? path

/**
 * Writes dropped files into `dir` (replacing it) as one checkpoint folder: zips are unpacked, and
 * entries are taken by base name (a zip of the folder or of its parent both work). Left: what is
 * missing.
 */
export const writeCheckpoint = (dir: string, dropped: ReadonlyArray<DroppedFile>): string | undefined => {
  const entries = dropped.flatMap((f) => (isZip(f.bytes) ? Object.entries(unzipSync(f.bytes)).map(([name, bytes]) => ({ name, bytes })) : [f]))
  const files = new Map(entries.filter((e) => !e.name.endsWith('/') && e.bytes.length > 0).map((e) => [baseName(e.name), e.bytes]))
  const missing = required.filter((name) => !files.has(name))
  if (missing.length > 0) return `a checkpoint folder needs ${missing.join(' and ')} (got ${[...files.keys()].join(', ') || 'nothing'})`
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  for (const [name, bytes] of files) writeFileSync(join(dir, name), bytes)
  return undefined
}
