import { ESLint } from 'eslint'
import { execFileSync } from 'node:child_process'
import { join, resolve } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'

const root = resolve(__dirname, '..', '..')

const lint = async (file: string): Promise<ESLint.LintResult> => {
  const eslint = new ESLint({ cwd: root, ignore: false })
  const [result] = await eslint.lintFiles([join(root, file)])
  if (result === undefined) throw new Error(`no lint result for ${file}`)
  return result
}

const ruleIds = (result: ESLint.LintResult): ReadonlyArray<string | null> => result.messages.map((m) => m.ruleId)

describe('module boundaries', () => {
  beforeAll(() => {
    // The Nx rule reads the cached project graph; make sure it exists.
    execFileSync(process.execPath, [join(root, 'node_modules/nx/dist/bin/nx.js'), 'show', 'projects'], {
      cwd: root,
      env: { ...process.env, NX_DAEMON: 'false' },
      stdio: 'ignore'
    })
  }, 60_000)

  it('reports core importing another lib', async () => {
    const result = await lint('tools/lint-fixtures/core-imports-backend/src/index.ts')
    expect(ruleIds(result)).toContain('@nx/enforce-module-boundaries')
    expect(result.messages.find((m) => m.ruleId === '@nx/enforce-module-boundaries')?.message).toMatch(/scope:core/)
  })

  it('reports a lib source importing a TensorFlow.js backend', async () => {
    const result = await lint('tools/lint-fixtures/env-imports-policy/src/index.ts')
    expect(ruleIds(result)).toContain('no-restricted-imports')
    expect(ruleIds(result)).not.toContain('@nx/enforce-module-boundaries')
  })

  it('reports a platform:any library importing Node built-ins, prefixed or not', async () => {
    const result = await lint('tools/lint-fixtures/any-imports-node/src/index.ts')
    const restricted = result.messages.filter((m) => m.ruleId === 'no-restricted-imports')
    expect(restricted.map((m) => m.line)).toEqual([2, 3])
    expect(restricted[0]?.message).toMatch(/platform:any/)
  })

  it('accepts Node built-ins in a library tagged platform:node', async () => {
    const result = await lint('libs/policy/src/Checkpoint.ts')
    expect(result.errorCount).toBe(0)
  })

  it('accepts the real sources of core', async () => {
    const result = await lint('libs/core/src/Rng.ts')
    expect(result.errorCount).toBe(0)
  })
})
