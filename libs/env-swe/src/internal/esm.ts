/**
 * ES modules in the repository (issue 55), compiled on the host: each file Node would load as
 * an ES module (`.mjs`, or `.js` under a `package.json` with `"type": "module"`) becomes a SES
 * module record (`@endo/module-source`'s `ModuleSource`: its imports, exports and the program
 * that evaluates it), plain data the harness hands to its Compartment (`harness/repository.cjs`).
 * Babel never runs inside the sandbox, and the records are all the harness gets of them.
 */
import * as fs from 'node:fs'
import * as path from 'node:path'

/** A compiled file: its module record, or why it does not compile (a syntax error). */
export type Compiled = { readonly record: Readonly<Record<string, unknown>> } | { readonly error: string }

/** The repository files looked at, at most (a repository of the corpus has a handful). */
const MAX_FILES = 2000
/** Larger files are not compiled (the record says so). */
const MAX_BYTES = 1 << 20

/** A regular file's text (never through a symlink: the repository's files are the agent's). */
const readText = (file: string): string | undefined => {
  try {
    return fs.lstatSync(file).isFile() ? fs.readFileSync(file, 'utf8') : undefined
  } catch {
    return undefined
  }
}

/** The `"type"` of the nearest `package.json` from `dir` up to `repoDir` ('commonjs' when none says). */
const packageType = (repoDir: string, dir: string): string => {
  for (let d = dir; d === repoDir || d.startsWith(repoDir + path.sep); d = path.dirname(d)) {
    const text = readText(path.join(d, 'package.json'))
    if (text !== undefined) {
      try {
        const type = (JSON.parse(text) as { type?: unknown }).type
        return type === 'module' ? 'module' : 'commonjs'
      } catch {
        return 'commonjs'
      }
    }
    if (d === repoDir) break
  }
  return 'commonjs'
}

/** Whether Node loads `rel` (a path in the repository) as an ES module. */
export const isModule = (repoDir: string, rel: string): boolean =>
  rel.endsWith('.mjs') || (rel.endsWith('.js') && packageType(repoDir, path.dirname(path.join(repoDir, rel))) === 'module')

/** Imported by name at run time: its type declarations pull in Babel's, which are not installed. */
const MODULE_SOURCE = '@endo/module-source'

let compiler: Promise<(source: string, shown: string) => Compiled> | undefined
const cache = new Map<string, Compiled>()

/** `ModuleSource`, loaded on first use only (Babel takes a second or two to load). */
const load = (): Promise<(source: string, shown: string) => Compiled> =>
  (compiler ??= (import(MODULE_SOURCE) as Promise<{ readonly ModuleSource: new (source: string, url: string) => object }>).then(
    ({ ModuleSource }) =>
      (source: string, shown: string): Compiled => {
        try {
          return { record: JSON.parse(JSON.stringify({ ...new ModuleSource(source, shown) })) as Record<string, unknown> }
        } catch (e) {
          return { error: e instanceof Error ? e.message : String(e) }
        }
      }
  ))

/** Compiles one module's source, shown as `shown` (cached by both). */
export const compile = async (source: string, shown: string): Promise<Compiled> => {
  const key = `${shown}\0${source}`
  const hit = cache.get(key)
  if (hit !== undefined) return hit
  const compiled = source.length > MAX_BYTES ? { error: `${shown} is larger than ${MAX_BYTES} bytes` } : (await load())(source, shown)
  if (cache.size > 4096) cache.clear()
  cache.set(key, compiled)
  return compiled
}

/** The repository's files (relative paths), symlinks and `node_modules` left out, at most `MAX_FILES`. */
const filesOf = (repoDir: string): ReadonlyArray<string> => {
  const out: string[] = []
  const walk = (dir: string): void => {
    let names: ReadonlyArray<fs.Dirent>
    try {
      names = fs.readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const d of names) {
      if (out.length >= MAX_FILES) return
      const full = path.join(dir, d.name)
      if (d.isDirectory() && d.name !== 'node_modules' && !d.name.startsWith('.')) walk(full)
      else if (d.isFile()) out.push(path.relative(repoDir, full))
    }
  }
  walk(repoDir)
  return out
}

/** Every ES module of the repository, compiled, by relative path (empty for a CommonJS repository). */
export const modulesOf = async (repoDir: string): Promise<Readonly<Record<string, Compiled>>> => {
  const entries: Array<[string, Compiled]> = []
  for (const rel of filesOf(repoDir)) {
    if (!isModule(repoDir, rel)) continue
    const source = readText(path.join(repoDir, rel))
    if (source !== undefined) entries.push([rel, await compile(source, rel)])
  }
  return Object.fromEntries(entries)
}
