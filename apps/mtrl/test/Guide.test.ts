import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = join(__dirname, '..', '..', '..')
const code = readFileSync(join(root, 'docs', 'guides', 'custom-pipeline.ts'), 'utf8')

describe('docs/guides/custom-pipeline', () => {
  it('the guide shows the example file verbatim', () => {
    expect(readFileSync(join(root, 'docs', 'guides', 'custom-pipeline.md'), 'utf8')).toContain(code)
  })

  it('the example runs end to end', () => {
    const result = spawnSync(
      process.execPath,
      [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), '--conditions=@mtrl/source', join(root, 'docs', 'guides', 'custom-pipeline.ts')],
      {
        cwd: root,
        encoding: 'utf8',
        timeout: 300_000
      }
    )
    expect(result.status, result.stderr.slice(-2000)).toBe(0)
    expect(result.stdout).toMatch(/sft loss \d/)
    expect(result.stdout).toMatch(/ppo 1 success/)
    expect(result.stdout).toMatch(/eval success \d/)
  }, 300_000)
})
