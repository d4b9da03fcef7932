/**
 * Sizes a reader can hold (STYLE.md; issue 38): no function over 60 code lines in the RL core's
 * libraries, none over 100 and no module over 300 anywhere in `libs/*\/src`. Code lines are the
 * non-blank lines that are not comments; a function counts from its first line to its last,
 * nested functions included. The modules not yet split are listed with their current sizes: one
 * that grows, or a new one over the bounds, fails; one split below the bounds must leave the list.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const root = resolve(__dirname, '..', '..')
const core = ['trainer-rl', 'rollout', 'advantages', 'trainer-sft', 'replicas', 'optim']

/**
 * Modules not yet split: the largest function's code lines, or the module's when it is over 300.
 * Empty since session 22 (issue 38); a module that must wait lists its size here, may not grow,
 * and leaves the list once split.
 */
const pending: Readonly<Record<string, number>> = {}

const codeLines = (text: string): number =>
  text.split('\n').filter((line) => {
    const t = line.trim()
    return t.length > 0 && !t.startsWith('//') && !t.startsWith('*') && !t.startsWith('/*')
  }).length

const sourcesOf = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourcesOf(path) : path.endsWith('.ts') ? [path] : []
  })

/** The module's code lines and its longest function's. */
const measure = (path: string): { readonly module: number; readonly longest: number } => {
  const text = readFileSync(path, 'utf8')
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true)
  let longest = 0
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isMethodDeclaration(node))
      longest = Math.max(longest, codeLines(text.slice(node.getStart(file), node.getEnd())))
    ts.forEachChild(node, visit)
  }
  visit(file)
  return { module: codeLines(text), longest }
}

const libs = readdirSync(join(root, 'libs')).filter((lib) => statSync(join(root, 'libs', lib, 'src'), { throwIfNoEntry: false })?.isDirectory())
const measured = libs.flatMap((lib) => sourcesOf(join(root, 'libs', lib, 'src')).map((path) => ({ lib, path: relative(root, path), ...measure(path) })))

describe('sizes', () => {
  it('measures every library', () => {
    expect(measured.length).toBeGreaterThan(100)
  })
  it(`no function over 60 code lines in ${core.join(', ')}`, () => {
    expect(measured.filter((m) => core.includes(m.lib) && m.longest > 60).map((m) => `${m.path}: ${m.longest}`)).toEqual([])
  })
  it('no function over 100 code lines and no module over 300 in libs/*/src, but the listed ones, which do not grow', () => {
    const over = measured.filter((m) => m.longest > 100 || m.module > 300)
    const size = (m: (typeof measured)[number]): number => (m.module > 300 ? Math.max(m.module, m.longest) : m.longest)
    expect(over.filter((m) => !(m.path in pending) || size(m) > pending[m.path]!).map((m) => `${m.path}: ${size(m)}`)).toEqual([])
    // a module split below the bounds leaves the list
    expect(Object.keys(pending).filter((path) => !over.some((m) => m.path === path))).toEqual([])
  })
})
