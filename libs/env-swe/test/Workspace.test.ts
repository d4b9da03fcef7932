import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Workspace.js'

const files = { 'src/a.js': 'const a = 1\nconst b = 2\n', 'test/a.test.js': 'test()\n' }

describe('Workspace', () => {
  it('no relative path made of .. segments and names resolves outside the repository', () => {
    const ws = _.make(files)
    try {
      const segment = fc.constantFrom('..', '.', 'src', 'x', 'test', '../..', 'src/..')
      fc.assert(
        fc.property(fc.array(segment, { minLength: 1, maxLength: 6 }), (parts) => {
          const r = _.resolveInside(ws.repoDir, parts.join('/'))
          if (E.isRight(r)) expect(r.right === ws.repoDir || r.right.startsWith(ws.repoDir + path.sep)).toBe(true)
        })
      )
    } finally {
      ws.dispose()
    }
  })

  it('refuses symlinks that leave the repository, for reading and for writing', () => {
    const ws = _.make(files)
    try {
      fs.symlinkSync('/etc/hostname', path.join(ws.repoDir, 'leak'))
      fs.symlinkSync(tmpdir(), path.join(ws.repoDir, 'tmp'))
      fs.symlinkSync('/nonexistent/x', path.join(ws.repoDir, 'dangling'))
      fs.symlinkSync('src/a.js', path.join(ws.repoDir, 'inner'))
      expect(_.cat(ws.repoDir, 'leak')).toEqual(E.left(expect.stringContaining('symlink')))
      expect(_.ls(ws.repoDir, 'tmp')).toEqual(E.left(expect.stringContaining('symlink')))
      expect(_.edit(ws.repoDir, { file: 'tmp/evil.txt', blocks: [{ search: '', replace: 'x' }] })).toEqual(E.left(expect.stringContaining('outside')))
      expect(_.edit(ws.repoDir, { file: 'dangling', blocks: [{ search: '', replace: 'x' }] })).toEqual(E.left(expect.stringContaining('dangling')))
      expect(fs.existsSync(path.join(tmpdir(), 'evil.txt'))).toBe(false)
      expect(E.isRight(_.cat(ws.repoDir, 'inner'))).toBe(true)
      expect(_.grep(ws.repoDir, 'localhost', '.')).toEqual(E.right(expect.stringContaining('no matches')))
    } finally {
      ws.dispose()
    }
  })

  it('lists, shows line ranges, greps plain text and edits', () => {
    const ws = _.make(files)
    try {
      expect(_.ls(ws.repoDir, '.')).toEqual(E.right('src/\ntest/'))
      expect(_.cat(ws.repoDir, 'src/a.js', [2, 2])).toEqual(E.right('2 | const b = 2'))
      expect(_.grep(ws.repoDir, 'b = (', '.')).toEqual(E.right(expect.stringContaining('no matches')))
      expect(_.grep(ws.repoDir, 'b = 2', 'src')).toEqual(E.right('src/a.js:2: const b = 2'))
      expect(_.edit(ws.repoDir, { file: 'src/a.js', blocks: [{ search: 'const b = 2', replace: 'const b = 3' }] })).toEqual(
        E.right(expect.stringContaining('edited'))
      )
      expect(fs.readFileSync(path.join(ws.repoDir, 'src/a.js'), 'utf8')).toBe('const a = 1\nconst b = 3\n')
    } finally {
      ws.dispose()
    }
  })

  it('no file action throws, whatever the path: bad ones are Left', () => {
    const ws = _.make(files)
    try {
      const part = fc.constantFrom('src', 'a.js', 'src/a.js', '..', '.', 'test', 'n'.repeat(300), 'x', '\0', ' ', 'd/'.repeat(700))
      const rel = fc.array(part, { minLength: 1, maxLength: 4 }).map((ps) => ps.join('/'))
      fc.assert(
        fc.property(rel, fc.boolean(), (p, create) => {
          const blocks = create ? [{ search: '', replace: 'x' }] : [{ search: 'const a = 1', replace: 'const a = 1' }]
          for (const r of [_.ls(ws.repoDir, p), _.cat(ws.repoDir, p), _.grep(ws.repoDir, 'a', p), _.edit(ws.repoDir, { file: p, blocks })]) {
            expect(E.isLeft(r) || E.isRight(r)).toBe(true)
          }
        }),
        { numRuns: 200 }
      )
      expect(_.edit(ws.repoDir, { file: 'src/a.js/b.js', blocks: [{ search: '', replace: 'x' }] })).toEqual(E.left(expect.stringContaining('not a directory')))
      expect(_.edit(ws.repoDir, { file: `src/${'n'.repeat(300)}.js`, blocks: [{ search: '', replace: 'x' }] })).toEqual(
        E.left(expect.stringContaining('name too long'))
      )
    } finally {
      ws.dispose()
    }
  })

  it('restores files over whatever occupies their paths, never through a symlink', () => {
    const ws = _.make(files)
    const outside = fs.mkdtempSync(path.join(tmpdir(), 'mtrl-swe-test-outside-'))
    try {
      const target = path.join(outside, 'keep.txt')
      fs.writeFileSync(target, 'KEEP')
      const states: ReadonlyArray<() => void> = [
        () => fs.mkdirSync(path.join(ws.repoDir, 'test/a.test.js/inner'), { recursive: true }),
        () => fs.writeFileSync(path.join(ws.repoDir, 'test'), 'a file where a directory was'),
        () => fs.symlinkSync(target, path.join(ws.repoDir, 'test/a.test.js')),
        () => fs.symlinkSync(outside, path.join(ws.repoDir, 'test')),
        () => undefined
      ]
      for (const state of states) {
        fs.rmSync(path.join(ws.repoDir, 'test'), { recursive: true, force: true })
        fs.mkdirSync(path.join(ws.repoDir, 'test'))
        if (state === states[1] || state === states[3]) fs.rmSync(path.join(ws.repoDir, 'test'), { recursive: true, force: true })
        state()
        expect(_.restore(ws.repoDir, { 'test/a.test.js': 'test()\n' })).toEqual([])
        expect(fs.lstatSync(path.join(ws.repoDir, 'test')).isDirectory()).toBe(true)
        expect(fs.lstatSync(path.join(ws.repoDir, 'test/a.test.js')).isFile()).toBe(true)
        expect(fs.readFileSync(path.join(ws.repoDir, 'test/a.test.js'), 'utf8')).toBe('test()\n')
        expect(fs.readFileSync(target, 'utf8')).toBe('KEEP')
        expect(fs.readdirSync(outside)).toEqual(['keep.txt'])
      }
    } finally {
      ws.dispose()
      fs.rmSync(outside, { recursive: true, force: true })
    }
  })

  it('dispose removes the directory', () => {
    const ws = _.make(files)
    ws.dispose()
    expect(fs.existsSync(ws.root)).toBe(false)
  })

  it('cleans up after a host killed with SIGKILL (the next make sweeps it), and on normal exit', () => {
    const base = fs.mkdtempSync(path.join(tmpdir(), 'mtrl-swe-test-base-'))
    try {
      const script = (kill: boolean) => `
        import * as W from ${JSON.stringify(new URL('../src/Workspace.ts', import.meta.url).pathname)}
        const ws = W.make({ 'a.txt': 'x' }, ${JSON.stringify(base)})
        console.log(ws.root)
        ${kill ? "process.kill(process.pid, 'SIGKILL')" : ''}`
      const tsx = path.join(path.dirname(require.resolve('tsx/package.json')), 'dist/cli.mjs')
      const killed = spawnSync(process.execPath, [tsx, '--conditions=@mtrl/source', '-e', script(true)], { encoding: 'utf8' })
      const left = killed.stdout.trim()
      expect(left).toMatch(/mtrl-swe-\d+-/)
      expect(fs.existsSync(left)).toBe(true)
      expect(_.sweep(base)).toBe(1)
      expect(fs.existsSync(left)).toBe(false)
      const clean = spawnSync(process.execPath, [tsx, '--conditions=@mtrl/source', '-e', script(false)], { encoding: 'utf8' })
      expect(fs.existsSync(clean.stdout.trim())).toBe(false)
      expect(fs.readdirSync(base)).toEqual([])
    } finally {
      fs.rmSync(base, { recursive: true, force: true })
    }
  })
})
