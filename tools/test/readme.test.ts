import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
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
