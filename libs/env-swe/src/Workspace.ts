/**
 * An episode's private directory and the file actions on it (`ls`, `cat`, `grep`, `edit`).
 *
 * Layout: `<os.tmpdir()>/mtrl-swe-<pid>-<random>/` holds `repo/` (the project; the agent's
 * whole world and the only path sandboxed code may write) and `harness/` (the trusted side of a
 * test run, read-only for the sandbox; see `Harness`). Every path the agent names is resolved
 * inside `repo/`; a path that leaves it, by `..`, an absolute path or a symlink (checked on the
 * real path), is refused. No file action throws: whatever the path or the state of the
 * directory (a file where a directory should be, a name too long, a permission), it returns
 * `Left` with the reason.
 *
 * Clean-up: `dispose` removes the directory; a process `exit` hook removes what is still
 * live; and `make` sweeps directories left by processes that no longer exist (a host killed
 * with SIGKILL runs no hook; an `owner` file names the PID namespace and process start time, so
 * only true orphans are swept).
 *
 * @since 0.1.0
 */
import * as fs from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import * as Edit from './Edit.js'
import * as Harness from './Harness.js'

/** Prefix of every episode directory in the temporary directory. @category constants @since 0.1.0 */
export const PREFIX = 'mtrl-swe-'

/**
 * A live workspace.
 *
 * @category models
 * @since 0.1.0
 */
export interface Workspace {
  readonly root: string
  readonly repoDir: string
  /** The installed harness (see `Harness`). */
  readonly harnessDir: string
  /** Chowns the repository to a sandbox uid (no-op for `undefined`). */
  readonly prepare: (uid: number | undefined) => void
  readonly dispose: () => void
}

const live = new Set<string>()
let hooked = false
const removeLive = (): void => {
  for (const dir of live) fs.rmSync(dir, { recursive: true, force: true })
  live.clear()
}

/**
 * Who owns an episode directory: the PID namespace and the start time of the owning process, so
 * that a directory of a process in another namespace sharing this tmpdir, or a recycled pid, is
 * never mistaken for an orphan.
 */
const selfIdentity = (pid: number): string | undefined => {
  try {
    const ns = fs.readlinkSync('/proc/self/ns/pid')
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
    return `${ns} ${start}`
  } catch {
    return undefined
  }
}

/**
 * Removes episode directories whose owning process is gone (same PID namespace, and the pid is
 * dead or now belongs to a different process). Returns how many it removed.
 *
 * @category destructors
 * @since 0.1.0
 */
export const sweep = (base: string = tmpdir()): number => {
  let removed = 0
  const ns = selfIdentity(process.pid)?.split(' ')[0]
  for (const name of fs.readdirSync(base)) {
    const m = /^mtrl-swe-(\d+)-[A-Za-z0-9]+$/.exec(name)
    if (m === null || ns === undefined) continue
    let owner: string
    try {
      owner = fs.readFileSync(path.join(base, name, 'owner'), 'utf8')
    } catch {
      continue
    }
    if (owner.split(' ')[0] !== ns) continue
    if (selfIdentity(Number(m[1])) === owner) continue
    fs.rmSync(path.join(base, name), { recursive: true, force: true })
    removed++
  }
  return removed
}

/** Chowns a tree (symlinks themselves, never their targets); never throws, skips what it cannot. */
const chownTree = (dir: string, uid: number): void => {
  const stack = [dir]
  while (stack.length > 0) {
    const d = stack.pop()!
    try {
      fs.lchownSync(d, uid, uid)
      for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, entry.name)
        if (entry.isDirectory()) stack.push(p)
        else fs.lchownSync(p, uid, uid)
      }
    } catch {
      // A path the run made unreachable (too long, removed meanwhile): the run cannot use it either.
    }
  }
}

/**
 * Creates a workspace holding `files` (relative path -> text).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (files: Readonly<Record<string, string>>, base: string = tmpdir()): Workspace => {
  if (!hooked) {
    hooked = true
    process.once('exit', removeLive)
  }
  sweep(base)
  const finalRoot = fs.realpathSync(fs.mkdtempSync(path.join(base, `${PREFIX}${process.pid}-`)))
  live.add(finalRoot)
  fs.chmodSync(finalRoot, 0o711)
  const identity = selfIdentity(process.pid)
  if (identity !== undefined) fs.writeFileSync(path.join(finalRoot, 'owner'), identity, { mode: 0o600 })
  const repoDir = path.join(finalRoot, 'repo')
  fs.mkdirSync(repoDir, { mode: 0o700 })
  const harnessDir = path.join(finalRoot, 'harness')
  Harness.install(harnessDir)
  writeFiles(repoDir, files)
  return {
    root: finalRoot,
    repoDir,
    harnessDir,
    prepare: (uid) => {
      if (uid !== undefined) chownTree(repoDir, uid)
    },
    dispose: () => {
      fs.rmSync(finalRoot, { recursive: true, force: true })
      live.delete(finalRoot)
    }
  }
}

/**
 * Writes files under a directory (creating parent directories).
 *
 * @category combinators
 * @since 0.1.0
 */
export const writeFiles = (dir: string, files: Readonly<Record<string, string>>): void => {
  for (const [rel, text] of Object.entries(files)) {
    const p = path.join(dir, rel)
    fs.mkdirSync(path.dirname(p), { recursive: true })
    fs.writeFileSync(p, text)
  }
}

const reasons: Readonly<Record<string, string>> = {
  ENOTDIR: 'a path component is a file, not a directory',
  EEXIST: 'a path component is a file, not a directory',
  EISDIR: 'is a directory',
  ENAMETOOLONG: 'name too long',
  ELOOP: 'too many levels of symbolic links',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOSPC: 'no space left',
  EFBIG: 'file too large'
}

const errorText = (e: unknown): string => {
  const code = (e as { code?: unknown }).code
  return typeof code === 'string' ? `${reasons[code] ?? 'cannot be accessed'} (${code})` : e instanceof Error ? e.message : String(e)
}

/** Runs a file action, turning any filesystem exception into `Left` (`rel: CODE`). */
const attempt = <A>(rel: string, action: () => E.Either<string, A>): E.Either<string, A> => {
  try {
    return action()
  } catch (e) {
    return E.left(`${rel.slice(0, 200)}: ${errorText(e)}`)
  }
}

/**
 * Puts `files` back at their paths under `dir`, whatever occupies them now: a directory, a
 * symlink or a special file at a file's path, or a non-directory at one of its parent
 * directories, is removed first. Returns the paths it could not restore, with the reason.
 *
 * @category combinators
 * @since 0.1.0
 */
export const restore = (dir: string, files: Readonly<Record<string, string>>): ReadonlyArray<string> => {
  const failed: string[] = []
  for (const [rel, text] of Object.entries(files)) {
    try {
      let at = dir
      for (const part of path
        .dirname(rel)
        .split('/')
        .filter((x) => x !== '' && x !== '.')) {
        at = path.join(at, part)
        const st = fs.lstatSync(at, { throwIfNoEntry: false })
        if (st !== undefined && !st.isDirectory()) fs.rmSync(at, { force: true })
        if (st === undefined || !st.isDirectory()) fs.mkdirSync(at)
      }
      const target = path.join(dir, rel)
      const st = fs.lstatSync(target, { throwIfNoEntry: false })
      if (st !== undefined && !st.isFile()) fs.rmSync(target, { recursive: true, force: true })
      fs.writeFileSync(target, text)
    } catch (e) {
      failed.push(`${rel}: ${errorText(e)}`)
    }
  }
  return failed
}

/**
 * Resolves an agent-supplied path inside `repoDir`, refusing escapes. For a path that does not
 * exist yet, its nearest existing parent is checked.
 *
 * @category destructors
 * @since 0.1.0
 */
export const resolveInside = (repoDir: string, rel: string): E.Either<string, string> => {
  if (rel.includes('\0')) return E.left('invalid path')
  if (path.isAbsolute(rel)) return E.left(`${rel}: absolute paths are not allowed; paths are relative to the repository`)
  const target = path.resolve(repoDir, rel)
  const inside = (p: string): boolean => p === repoDir || p.startsWith(repoDir + path.sep)
  if (!inside(target)) return E.left(`${rel}: outside the repository`)
  let existing = target
  while (!fs.existsSync(existing) && existing !== repoDir) {
    try {
      fs.lstatSync(existing)
      return E.left(`${rel}: a dangling symlink`)
    } catch {
      existing = path.dirname(existing)
    }
  }
  let real: string
  try {
    real = fs.realpathSync(existing)
  } catch {
    return E.left(`${rel}: cannot be resolved`)
  }
  return inside(real) ? E.right(target) : E.left(`${rel}: resolves outside the repository (symlink)`)
}

/** Largest file `cat`/`grep`/`edit` will read. */
const MAX_READ = 1 << 20

const readText = (p: string): E.Either<string, string> => {
  const st = fs.statSync(p)
  if (!st.isFile()) return E.left('not a regular file')
  if (st.size > MAX_READ) return E.left(`file too large (${st.size} bytes)`)
  return E.right(fs.readFileSync(p, 'utf8'))
}

/**
 * `ls [dir]`: entries of a directory, directories with a trailing `/`.
 *
 * @category destructors
 * @since 0.1.0
 */
export const ls = (repoDir: string, rel: string): E.Either<string, string> =>
  attempt(rel, () => {
    const r = resolveInside(repoDir, rel)
    if (E.isLeft(r)) return r
    if (!fs.existsSync(r.right) || !fs.statSync(r.right).isDirectory()) return E.left(`${rel}: no such directory`)
    const entries = fs
      .readdirSync(r.right, { withFileTypes: true })
      .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
      .sort()
    return E.right(entries.length === 0 ? '(empty)' : entries.join('\n'))
  })

/**
 * `cat FILE [START-END]`: the file with 1-based line numbers, optionally a line range.
 *
 * @category destructors
 * @since 0.1.0
 */
export const cat = (repoDir: string, rel: string, range?: readonly [number, number]): E.Either<string, string> =>
  attempt(rel, () => {
    const r = resolveInside(repoDir, rel)
    if (E.isLeft(r)) return r
    if (!fs.existsSync(r.right)) return E.left(`${rel}: no such file`)
    const text = readText(r.right)
    if (E.isLeft(text)) return E.left(`${rel}: ${text.left}`)
    const lines = text.right.split('\n')
    const [from, to] = range ?? [1, lines.length]
    if (from < 1 || to < from) return E.left(`bad line range ${from}-${to}`)
    const width = String(Math.min(to, lines.length)).length
    return E.right(
      lines
        .slice(from - 1, to)
        .map((l, i) => `${String(from + i).padStart(width)} | ${l}`)
        .join('\n')
    )
  })

const walkFiles = (dir: string, out: string[], limit: number): void => {
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (out.length >= limit) return
    const p = path.join(dir, e.name)
    if (e.isDirectory() && e.name !== 'node_modules') walkFiles(p, out, limit)
    else if (e.isFile()) out.push(p)
  }
}

/**
 * `grep PATTERN [DIR]`: lines containing PATTERN (a plain substring, so no pattern can hang the
 * host), as `file:line: text`. Symlinks are not followed.
 *
 * @category destructors
 * @since 0.1.0
 */
export const grep = (repoDir: string, pattern: string, rel: string): E.Either<string, string> =>
  attempt(rel, () => {
    const r = resolveInside(repoDir, rel)
    if (E.isLeft(r)) return r
    if (!fs.existsSync(r.right)) return E.left(`${rel}: no such file or directory`)
    const files: string[] = []
    if (fs.statSync(r.right).isDirectory()) walkFiles(r.right, files, 2000)
    else files.push(r.right)
    const hits: string[] = []
    for (const f of files) {
      const text = readText(f)
      if (E.isLeft(text)) continue
      text.right.split('\n').forEach((line, i) => {
        if (line.includes(pattern)) hits.push(`${path.relative(repoDir, f)}:${i + 1}: ${line}`)
      })
    }
    return E.right(hits.length === 0 ? `no matches for ${JSON.stringify(pattern)}` : hits.join('\n'))
  })

/**
 * `edit FILE` + blocks: applies a search/replace edit (see `Edit`), all or nothing.
 *
 * @category combinators
 * @since 0.1.0
 */
export const edit = (repoDir: string, fileEdit: Edit.FileEdit): E.Either<string, string> =>
  attempt(fileEdit.file, () => {
    const r = resolveInside(repoDir, fileEdit.file)
    if (E.isLeft(r)) return r
    const exists = fs.existsSync(r.right)
    let before: string | undefined
    if (exists) {
      const text = readText(r.right)
      if (E.isLeft(text)) return E.left(`${fileEdit.file}: ${text.left}`)
      before = text.right
    }
    const after = Edit.applyBlocks(fileEdit.blocks)(before)
    if (E.isLeft(after)) return E.left(`${fileEdit.file}: ${after.left}`)
    fs.mkdirSync(path.dirname(r.right), { recursive: true })
    fs.writeFileSync(r.right, after.right)
    const n = fileEdit.blocks.length
    return E.right(`${exists ? 'edited' : 'created'} ${fileEdit.file} (${n} block${n === 1 ? '' : 's'} applied)`)
  })
