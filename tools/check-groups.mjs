// The checks `npm test` runs as one process for many projects (tools/test.mjs): a typecheck of
// every project whose tsconfig is the base config with only `noEmit` and its own `include`, as
// one TypeScript program, and a lint of every project whose lint script is `eslint DIR...`, as
// one ESLint run. Each project's own script checks the same files with the same options, but
// each `tsc -p` re-checks the sources of every @mtrl/* library the project imports (they resolve
// to sources), and each process loads TypeScript or ESLint and its plugins anew: 26 typechecks
// took ~215 s on 2 cores, the 22 of them one program checks ~28 s of CPU; 26 lints ~77 s, one
// ~14 s. A project whose config or script is anything else keeps a task of its own.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, posix, relative } from 'node:path'

const plainTypecheck = 'tsc -p tsconfig.json --noEmit'
const lintScript = /^eslint((?: [\w./-]+)+)$/

/** The project's tsconfig.json when it is the base config with `noEmit` and an `include` only (no comments), else undefined. */
const plainTsconfig = (dir) => {
  try {
    const config = JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8'))
    const keys = Object.keys(config).sort().join(',')
    const options = JSON.stringify(config.compilerOptions)
    return keys === 'compilerOptions,extends,include' &&
      config.extends === '../../tsconfig.base.json' &&
      options === '{"noEmit":true}' &&
      Array.isArray(config.include)
      ? config
      : undefined
  } catch {
    return undefined
  }
}

/** Whether a .ts file under `dir` (not node_modules, dist) declares globals, which one program would share with every project in it. */
const declaresGlobals = (dir) =>
  readdirSync(dir, { withFileTypes: true }).some((entry) =>
    entry.isDirectory()
      ? entry.name !== 'node_modules' && entry.name !== 'dist' && declaresGlobals(join(dir, entry.name))
      : entry.name.endsWith('.ts') && /^\s*declare (global|module)\b/m.test(readFileSync(join(dir, entry.name), 'utf8'))
  )

/**
 * Splits the typecheck and lint targets of `projects` (`{ name, root, scripts }`, root relative to
 * `workspace`) into grouped tasks and the projects left to run their own script. A grouped task is
 * `{ group, target, projects, command, args }`, run in `workspace`; its typecheck program is
 * written to `configFile` (which must sit two folders below the workspace, as libs/X does).
 */
export const groups = (workspace, projects, configFile) => {
  const typecheck = projects.filter(
    (p) => p.scripts.typecheck === plainTypecheck && plainTsconfig(join(workspace, p.root)) !== undefined && !declaresGlobals(join(workspace, p.root))
  )
  const lint = projects.filter((p) => lintScript.test(p.scripts.lint ?? ''))
  const tasks = []
  if (typecheck.length > 0) {
    const include = typecheck.flatMap((p) => plainTsconfig(join(workspace, p.root)).include.map((pattern) => posix.normalize(`../../${p.root}/${pattern}`)))
    writeFileSync(configFile, `${JSON.stringify({ extends: '../../tsconfig.base.json', compilerOptions: { noEmit: true }, include }, null, 2)}\n`)
    const tsc = join(workspace, 'node_modules/typescript/bin/tsc')
    tasks.push({
      group: 'typecheck',
      target: 'typecheck',
      projects: typecheck.map((p) => p.name),
      command: tsc,
      args: ['-p', relative(workspace, configFile), '--noEmit', '--pretty', 'false']
    })
  }
  if (lint.length > 0) {
    const dirs = lint.flatMap((p) =>
      lintScript
        .exec(p.scripts.lint)[1]
        .trim()
        .split(' ')
        .map((dir) => posix.join(p.root, dir))
    )
    const eslint = join(workspace, 'node_modules/eslint/bin/eslint.js')
    tasks.push({ group: 'lint', target: 'lint', projects: lint.map((p) => p.name), command: eslint, args: dirs })
  }
  const grouped = new Set(tasks.flatMap((t) => t.projects.map((name) => `${name}:${t.target}`)))
  return { tasks, alone: (name, target) => !grouped.has(`${name}:${target}`) }
}

/**
 * The files a grouped check's output names with an error: TypeScript's `FILE(line,col): error`
 * lines (relative to the workspace) and ESLint's stylish report (an absolute file line, then its
 * problems, `line:col  error  ...`).
 */
export const errorFiles = (workspace, output) => {
  const files = new Set()
  let current
  for (const line of output.split('\n')) {
    const tsc = /^(\S[^(]*)\(\d+,\d+\): error /.exec(line)
    if (tsc !== null) files.add(posix.normalize(tsc[1]))
    else if (line.startsWith('/')) current = relative(workspace, line.trim())
    else if (current !== undefined && /^\s+\d+:\d+\s+error\s/.test(line)) files.add(current)
  }
  return [...files]
}

/**
 * The projects of a grouped check that failed: each project with an error in a file under its
 * root; every project of the group when the check failed and no error names a project's file
 * (a file outside them all, a crash).
 */
export const failedProjects = (roots, files, ok) => {
  if (ok) return []
  const named = Object.keys(roots).filter((name) => files.some((file) => file.startsWith(`${roots[name]}/`)))
  return named.length > 0 && files.every((file) => Object.values(roots).some((root) => file.startsWith(`${root}/`))) ? named : Object.keys(roots)
}
