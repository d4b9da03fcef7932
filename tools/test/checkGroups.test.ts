/**
 * `npm test`'s grouped checks (tools/check-groups.mjs): which projects one TypeScript program and
 * one ESLint run check, and which project a failure goes to.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { errorFiles, failedProjects, groups } from '../check-groups.mjs'

const workspace = mkdtempSync(join(tmpdir(), 'mtrl-check-groups-'))
afterAll(() => rmSync(workspace, { recursive: true, force: true }))

const project = (root: string, tsconfig: string, scripts: Record<string, string>) => {
  mkdirSync(join(workspace, root), { recursive: true })
  writeFileSync(join(workspace, root, 'tsconfig.json'), tsconfig)
  return { name: root.split('/').pop(), root, scripts }
}
const plain = (include: string[]) => JSON.stringify({ extends: '../../tsconfig.base.json', compilerOptions: { noEmit: true }, include })
const tsc = 'tsc -p tsconfig.json --noEmit'

describe('groups', () => {
  const projects = [
    project('libs/a', plain(['src/**/*.ts', 'test/**/*.ts']), { typecheck: tsc, lint: 'eslint src test' }),
    project('libs/b', plain(['src/**/*.ts', '../../examples/*.ts']), { typecheck: tsc, lint: 'eslint src test bench' }),
    // its own options, a comment, another script: each its own task
    project('libs/dom', JSON.stringify({ extends: '../../tsconfig.base.json', compilerOptions: { noEmit: true, lib: ['DOM'] }, include: ['src/**/*.ts'] }), {
      typecheck: tsc,
      lint: 'eslint src && echo done'
    }),
    project('libs/commented', `// a comment\n${plain(['src/**/*.ts'])}`, { typecheck: tsc }),
    project('apps/other', plain(['src/**/*.ts']), { typecheck: 'tsc -p tsconfig.build.json --noEmit' }),
    project('libs/globals', plain(['src/**/*.ts']), { typecheck: tsc })
  ]
  mkdirSync(join(workspace, 'libs/globals/src'))
  writeFileSync(join(workspace, 'libs/globals/src/window.ts'), 'declare global {\n  interface Window { readonly x: number }\n}\nexport {}\n')
  const configFile = join(workspace, 'tmp', 'results', 'tsconfig.typecheck.json')
  mkdirSync(join(workspace, 'tmp', 'results'), { recursive: true })
  const { tasks, alone } = groups(workspace, projects, configFile)

  it('types the plain configs as one program of all their includes, from two folders below the workspace', () => {
    expect(tasks[0]).toMatchObject({
      target: 'typecheck',
      projects: ['a', 'b'],
      args: ['-p', join('tmp', 'results', 'tsconfig.typecheck.json'), '--noEmit', '--pretty', 'false']
    })
    expect(JSON.parse(readFileSync(configFile, 'utf8'))).toEqual({
      extends: '../../tsconfig.base.json',
      compilerOptions: { noEmit: true },
      include: ['../../libs/a/src/**/*.ts', '../../libs/a/test/**/*.ts', '../../libs/b/src/**/*.ts', '../../examples/*.ts']
    })
  })

  it('lints the plain eslint scripts as one run of all their folders', () => {
    expect(tasks[1]).toMatchObject({ target: 'lint', projects: ['a', 'b'], args: ['libs/a/src', 'libs/a/test', 'libs/b/src', 'libs/b/test', 'libs/b/bench'] })
  })

  it('leaves every other check to its own project (other options or script, a comment, a file that declares globals)', () => {
    expect(['a', 'b', 'dom', 'commented', 'other', 'globals'].map((name) => [alone(name, 'typecheck'), alone(name, 'lint')])).toEqual([
      [false, false],
      [false, false],
      [true, true],
      [true, true],
      [true, true],
      [true, true]
    ])
  })
})

describe('failures', () => {
  const roots = { a: 'libs/a', b: 'libs/b', ab: 'libs/ab' }

  it('reads the files TypeScript and ESLint name with an error (not a warning)', () => {
    const tscOut = 'libs/a/src/x.ts(3,5): error TS2322: no.\nlibs/a/src/x.ts(4,1): error TS2322: no.\n'
    const eslintOut = [
      `${workspace}/libs/b/src/y.ts`,
      '  1:1  warning  meh',
      `${workspace}/libs/ab/test/z.ts`,
      '  2:3  error  bad  rule',
      '',
      '✖ 2 problems'
    ].join('\n')
    expect(errorFiles(workspace, tscOut + eslintOut)).toEqual(['libs/a/src/x.ts', 'libs/ab/test/z.ts'])
  })

  it('fails the projects whose files have errors, every project when an error lies outside them or none is named', () => {
    expect(failedProjects(roots, ['libs/ab/src/x.ts'], false)).toEqual(['ab'])
    expect(failedProjects(roots, ['libs/ab/src/x.ts'], true)).toEqual([])
    expect(failedProjects(roots, ['libs/a/src/x.ts', 'examples/e.ts'], false)).toEqual(['a', 'b', 'ab'])
    expect(failedProjects(roots, [], false)).toEqual(['a', 'b', 'ab'])
  })
})
