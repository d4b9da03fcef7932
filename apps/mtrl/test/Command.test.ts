import { describe, expect, it } from 'vitest'
import { commands } from '../src/commands/all.js'

describe('Command flags', () => {
  it('every command names each of its flags in its help', () => {
    const missing = commands.flatMap((c) =>
      Object.keys(c.flags)
        .filter((flag) => !c.help.includes(`--${flag}`))
        .map((flag) => `${c.name} --${flag}`)
    )
    expect(missing).toEqual([])
  })
})
