import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Services.js'

describe('Services', () => {
  it('tags a test with the service it needs, as tools/test.mjs counts skips', () => {
    expect(_.tag('python-openai')).toBe('[needs python-openai]')
    expect(_.tag('redis-server')).toBe('[needs redis-server]')
  })

  it("python-openai is there exactly when python3 imports openai (the Python agents' serving tests)", () => {
    const imports = spawnSync('python3', ['-c', 'import openai'], { stdio: 'ignore' }).status === 0
    expect(_.available('python-openai')).toBe(imports)
  })

  it('an executable service is there when it is on PATH', () => {
    const onPath = spawnSync('sh', ['-c', 'command -v redis-server'], { stdio: 'ignore' }).status === 0
    expect(_.available('redis-server')).toBe(onPath)
  })
})
