/**
 * Files the user hands the page, as `DroppedFile`s: picked in a file input, or dropped (files, a
 * zip, or a whole checkpoint folder, whose files are read recursively).
 */
import type { DroppedFile } from '../worker/protocol.js'

const read = async (file: File, name = file.name): Promise<DroppedFile> => ({ name, bytes: new Uint8Array(await file.arrayBuffer()) })

const fileOf = (entry: FileSystemFileEntry): Promise<File> => new Promise((resolve, reject) => entry.file(resolve, reject))

const childrenOf = (entry: FileSystemDirectoryEntry): Promise<ReadonlyArray<FileSystemEntry>> =>
  new Promise((resolve, reject) => {
    const reader = entry.createReader()
    const all: FileSystemEntry[] = []
    const next = (): void => reader.readEntries((batch) => (batch.length === 0 ? resolve(all) : (all.push(...batch), next())), reject)
    next()
  })

/** The files under `entry`, named by their path inside the dropped folder. */
const filesUnder = async (entry: FileSystemEntry): Promise<ReadonlyArray<DroppedFile>> => {
  if (entry.isFile) return [await read(await fileOf(entry as FileSystemFileEntry), entry.fullPath.replace(/^\//, ''))]
  const children = await childrenOf(entry as FileSystemDirectoryEntry)
  return (await Promise.all(children.map(filesUnder))).flat()
}

/** The files of a file input. */
export const fromInput = (files: FileList | null): Promise<ReadonlyArray<DroppedFile>> => Promise.all([...(files ?? [])].map((f) => read(f)))

/** The files of a drop: folders walked, plain files read. */
export const fromDrop = async (transfer: DataTransfer): Promise<ReadonlyArray<DroppedFile>> => {
  const entries = [...transfer.items].flatMap((item) => {
    const entry = item.kind === 'file' ? item.webkitGetAsEntry() : null
    return entry === null ? [] : [entry]
  })
  return entries.length > 0 ? (await Promise.all(entries.map(filesUnder))).flat() : fromInput(transfer.files)
}
