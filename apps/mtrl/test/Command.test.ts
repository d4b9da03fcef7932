import { describe, expect, it } from 'vitest'
import { all, entries } from '../src/commands/all.js'

describe('Command flags', () => {
  it('every command names each of its flags in its help', async () => {
    const commands = await all()
    const missing = commands.flatMap((c) =>
      Object.keys(c.flags)
        .filter((flag) => !c.help.includes(`--${flag}`))
        .map((flag) => `${c.name} --${flag}`)
    )
    expect(missing).toEqual([])
  })

  it('lists each command by its own name and summary, in the order it loads them (the list `mtrl --help` prints without loading them)', async () => {
    const commands = await all()
    expect(entries.map((e) => [e.name, e.summary])).toEqual(commands.map((c) => [c.name, c.summary]))
    expect(new Set(entries.map((e) => e.name)).size).toBe(entries.length)
  })
})
