import * as E from 'fp-ts/lib/Either.js'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Input.js'

const dir = mkdtempSync(join(tmpdir(), 'mtrl-cli-input-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('Input.readJson', () => {
  it('parses a file, and names a file it cannot read or parse', async () => {
    const good = join(dir, 'good.json')
    writeFileSync(good, '{"a": [1, 2]}')
    expect(await _.readJson(good)()).toEqual(E.right({ a: [1, 2] }))
    const bad = join(dir, 'bad.json')
    writeFileSync(bad, '{"a": ')
    expect(await _.readJson(bad)()).toEqual(E.left({ _tag: 'Usage', message: expect.stringMatching(new RegExp(`^${bad} is not valid JSON: `)) }))
    const missing = join(dir, 'missing.json')
    expect(await _.readJson(missing)()).toEqual(E.left({ _tag: 'Usage', message: expect.stringMatching(new RegExp(`^cannot read ${missing}: .*ENOENT`)) }))
  })
})
