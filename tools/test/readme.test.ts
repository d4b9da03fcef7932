import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

const root = resolve(__dirname, '..', '..')
const out = join(root, 'tmp', 'readme-examples')
afterAll(() => rmSync(out, { recursive: true, force: true }))

/** The ```ts blocks of every library README, as `<lib>-<n>.ts`. */
const examples = (): ReadonlyArray<{ readonly lib: string; readonly file: string }> =>
  readdirSync(join(root, 'libs')).flatMap((lib) => {
    let text: string
    try {
      text = readFileSync(join(root, 'libs', lib, 'README.md'), 'utf8')
    } catch {
      return []
    }
    return [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m, n) => {
      const file = join(out, `${lib}-${n + 1}.ts`)
      writeFileSync(file, m[1]!)
      return { lib, file }
    })
  })

describe('README examples', () => {
  mkdirSync(out, { recursive: true })
  const all = examples()

  it('every library README has an example, and every example typechecks against the sources', () => {
    const libs = readdirSync(join(root, 'libs'))
    expect(libs.filter((lib) => !all.some((e) => e.lib === lib))).toEqual([])
    writeFileSync(join(out, 'tsconfig.json'), JSON.stringify({ extends: '../../tsconfig.base.json', compilerOptions: { noEmit: true }, include: ['*.ts'] }))
    const tsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(out, 'tsconfig.json')], { encoding: 'utf8' })
    expect(tsc.stdout + tsc.stderr).toBe('')
    expect(tsc.status).toBe(0)
  }, 120_000)

  for (const lib of ['core', 'backend', 'testing', 'optim', 'eval'])
    it(`the ${lib} example runs`, () => {
      const example = all.find((e) => e.lib === lib)!
      const run = spawnSync(process.execPath, [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), '--conditions=@mtrl/source', example.file], {
        cwd: join(root, 'libs', lib),
        encoding: 'utf8',
        env: { ...process.env, FORCE_COLOR: '0' },
        timeout: 120_000
      })
      expect(run.status, run.stderr.slice(-2000)).toBe(0)
    }, 120_000)
})

/** The CLI's command names, as each command file declares them (`make({ name: '...' })`). */
const commandNames = (): ReadonlySet<string> => {
  const dir = join(root, 'apps', 'mtrl', 'src', 'commands')
  return new Set(readdirSync(dir).flatMap((f) => [...readFileSync(join(dir, f), 'utf8').matchAll(/make\(\{\s*name: '([^']+)'/g)].map((m) => m[1]!)))
}

/** The scripts of the root package.json, or of the workspace `-w NAME` names. */
const scripts = (workspace: string | undefined): ReadonlySet<string> => {
  const manifests = ['apps', 'libs', 'tools'].flatMap((d) =>
    readdirSync(join(root, d)).flatMap((p) => (existsSync(join(root, d, p, 'package.json')) ? [join(root, d, p, 'package.json')] : []))
  )
  const file = workspace === undefined ? join(root, 'package.json') : manifests.find((m) => JSON.parse(readFileSync(m, 'utf8')).name === workspace)
  return new Set(file === undefined ? [] : Object.keys((JSON.parse(readFileSync(file, 'utf8')) as { scripts?: object }).scripts ?? {}))
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-')

describe('the README (a newcomer reads it)', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  const lines = readme.split('\n')

  it('is under 100 lines, with the two commands on its first screen', () => {
    expect(lines.length).toBeLessThan(100)
    const first = lines.slice(0, 25).join('\n')
    expect(first).toMatch(/^npm ci && npm start\b/m)
    expect(first).toMatch(/^npm ci && npm test\b/m)
  })

  it('names only commands that exist: every `npx mtrl X` a command of the CLI, every `npm run X [-w P]` a script, every recipe a file', () => {
    const names = commandNames()
    const mtrl = [...readme.matchAll(/npx mtrl ([a-z][a-z-]*)/g)].map((m) => m[1]!)
    expect(mtrl.length).toBeGreaterThan(0)
    expect(mtrl.filter((c) => !names.has(c))).toEqual([])
    const runs = [...readme.matchAll(/npm run ([\w:-]+)(?: -w (@?[\w/-]+))?/g)].map((m) => [m[1]!, m[2]] as const)
    expect(runs.length).toBeGreaterThan(0)
    expect(runs.filter(([script, ws]) => !scripts(ws).has(script)).map(([s, w]) => `${s}${w === undefined ? '' : ` -w ${w}`}`)).toEqual([])
    const recipes = [...readme.matchAll(/\brecipes\/[\w/.-]+\.json/g)].map((m) => m[0])
    expect(recipes.filter((r) => !existsSync(join(root, r)))).toEqual([])
  })

  it('links only to files that exist, and to headings that exist in them', () => {
    const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((l) => !/^https?:/.test(l))
    const broken = links.filter((link) => {
      const [path, anchor] = link.split('#') as [string, string | undefined]
      const file = join(root, path)
      if (!existsSync(file)) return true
      if (anchor === undefined) return false
      const headings = [...readFileSync(file, 'utf8').matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!))
      return !headings.includes(anchor)
    })
    expect(broken).toEqual([])
    expect(links.filter((l) => l.startsWith('docs/results.md#')).length).toBeGreaterThanOrEqual(5)
  })

  it('every headline figure with an interval is the figure its docs/results.md section gives', () => {
    const results = readFileSync(join(root, 'docs', 'results.md'), 'utf8')
    const sections = new Map(results.split(/^## /m).map((part) => [slug(part.split('\n')[0]!), part] as const))
    const rows = lines.filter((l) => l.startsWith('| [') && l.includes('docs/results.md#'))
    expect(rows.length).toBeGreaterThan(0)
    const missing = rows.flatMap((row) => {
      const section = sections.get(/docs\/results\.md#([^)]+)\)/.exec(row)![1]!) ?? ''
      const figures = [...row.matchAll(/(\d+\.\d)%? \[(\d+\.\d), (\d+\.\d)\]/g)]
      expect(figures.length, row).toBeGreaterThan(0)
      return figures
        .filter(
          (f) =>
            !section.includes(`${f[1]}% [${f[2]}, ${f[3]}]`) &&
            !section.includes(`${f[1]}** [${f[2]}, ${f[3]}]`) &&
            !section.includes(`${f[1]} [${f[2]}, ${f[3]}]`)
        )
        .map((f) => f[0])
    })
    expect(missing).toEqual([])
  })
})
