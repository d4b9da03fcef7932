/**
 * The agent's actions, one per turn, as text:
 *
 * ```
 * ls [DIR]                      list a directory (default: the repository root)
 * cat FILE [START-END]          show a file with line numbers, optionally lines START to END
 * grep PATTERN [DIR]            lines containing PATTERN (plain text; quote it "like this" if it has spaces)
 * edit FILE                     followed by one or more search/replace blocks:
 * <<<<<<< SEARCH
 * exact existing lines
 * =======
 * replacement lines
 * >>>>>>> REPLACE
 * run_tests [NAME]              run the test suite, or only tests whose name contains NAME
 * submit                        finish: the full suite is run and scored
 * ```
 *
 * @since 0.1.0
 */
import * as E from 'fp-ts/lib/Either.js'
import * as Edit from './Edit.js'

/**
 * A parsed action.
 *
 * @category models
 * @since 0.1.0
 */
export type Action =
  | { readonly _tag: 'Ls'; readonly dir: string }
  | { readonly _tag: 'Cat'; readonly file: string; readonly range?: readonly [number, number] }
  | { readonly _tag: 'Grep'; readonly pattern: string; readonly dir: string }
  | { readonly _tag: 'Edit'; readonly edit: Edit.FileEdit }
  | { readonly _tag: 'RunTests'; readonly name?: string }
  | { readonly _tag: 'Submit' }

/**
 * The action format, as one text for the policy's prompt (also `EnvSpec.actionFormat`).
 *
 * @category constants
 * @since 0.1.0
 */
export const usage = [
  'One action per turn:',
  '  ls [DIR]',
  '  cat FILE [START-END]',
  '  grep PATTERN [DIR]      (plain text; quote a pattern with spaces: grep "a b" src)',
  '  edit FILE               then one or more blocks:',
  '    <<<<<<< SEARCH',
  '    exact existing lines',
  '    =======',
  '    replacement lines',
  '    >>>>>>> REPLACE',
  '  run_tests [NAME]        all tests, or those whose name contains NAME',
  '  submit                  finish; the full test suite is scored'
].join('\n')

const words = (line: string): string[] => {
  const out: string[] = []
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g
  for (const m of line.matchAll(re)) out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? m[3]!))
  return out
}

/**
 * Parses one action. `Left` carries what was wrong (shown to the agent with the usage).
 *
 * @category constructors
 * @since 0.1.0
 */
export const parse = (text: string): E.Either<string, Action> => {
  const trimmed = text
    .replace(/\r\n/g, '\n')
    .replace(/^\s*\n/, '')
    .trimEnd()
  const newline = trimmed.indexOf('\n')
  const head = (newline === -1 ? trimmed : trimmed.slice(0, newline)).trim()
  const body = newline === -1 ? '' : trimmed.slice(newline + 1)
  const [verb, ...args] = words(head)
  if (verb === undefined) return E.left('empty action')
  if (verb !== 'edit' && body.trim() !== '') return E.left(`${verb} takes one line; only edit is followed by blocks`)
  switch (verb) {
    case 'ls':
      return args.length <= 1 ? E.right({ _tag: 'Ls', dir: args[0] ?? '.' }) : E.left('usage: ls [DIR]')
    case 'cat': {
      if (args.length === 0 || args.length > 2) return E.left('usage: cat FILE [START-END]')
      if (args.length === 1) return E.right({ _tag: 'Cat', file: args[0]! })
      const m = /^(\d+)-(\d+)$/.exec(args[1]!)
      if (m === null) return E.left('usage: cat FILE [START-END], e.g. cat src/a.js 10-20')
      return E.right({ _tag: 'Cat', file: args[0]!, range: [Number(m[1]), Number(m[2])] })
    }
    case 'grep':
      if (args.length === 0 || args.length > 2 || args[0] === '') return E.left('usage: grep PATTERN [DIR]')
      return E.right({ _tag: 'Grep', pattern: args[0]!, dir: args[1] ?? '.' })
    case 'edit': {
      if (args.length !== 1) return E.left('usage: edit FILE, then SEARCH/REPLACE blocks on the following lines')
      const blocks = Edit.parseBlocks(body)
      return E.isLeft(blocks) ? E.left(`edit: ${blocks.left}`) : E.right({ _tag: 'Edit', edit: { file: args[0]!, blocks: blocks.right } })
    }
    case 'run_tests':
      return args.length === 0
        ? E.right({ _tag: 'RunTests' })
        : E.right({
            _tag: 'RunTests',
            name: head
              .slice(head.indexOf('run_tests') + 9)
              .trim()
              .replace(/^"(.*)"$/, '$1')
          })
    case 'submit':
      return args.length === 0 ? E.right({ _tag: 'Submit' }) : E.left('usage: submit')
    default:
      return E.left(`unknown action ${JSON.stringify(verb.slice(0, 40))}`)
  }
}

/**
 * Renders an action back to text (`parse(render(a))` gives `a` back).
 *
 * @category destructors
 * @since 0.1.0
 */
export const render = (action: Action): string => {
  const q = (s: string): string => (/[\s"']/.test(s) || s === '' ? JSON.stringify(s) : s)
  switch (action._tag) {
    case 'Ls':
      return `ls ${q(action.dir)}`
    case 'Cat':
      return action.range === undefined ? `cat ${q(action.file)}` : `cat ${q(action.file)} ${action.range[0]}-${action.range[1]}`
    case 'Grep':
      return `grep ${q(action.pattern)} ${q(action.dir)}`
    case 'Edit':
      return Edit.render(action.edit)
    case 'RunTests':
      return action.name === undefined ? 'run_tests' : `run_tests ${action.name}`
    case 'Submit':
      return 'submit'
  }
}
