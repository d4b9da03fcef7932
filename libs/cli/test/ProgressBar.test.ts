import { describe, expect, it, vi } from 'vitest'
import * as _ from '../src/ProgressBar.js'
import * as Interrupt from '../src/Interrupt.js'

/** A stream that is no terminal, collecting what is written. */
const plain = () => {
  const written: string[] = []
  return { written, stream: { isTTY: false, write: (s: string) => (written.push(s), true) } as unknown as NodeJS.WriteStream }
}

describe('ProgressBar off a terminal', () => {
  it('writes the first step and a line per tenth of the work, not one per step', () => {
    const { written, stream } = plain()
    const bar = _.make(stream)('train', 100)
    for (let done = 1; done <= 100; done++) bar.update(done, `loss ${done}`)
    bar.stop()
    expect(written.map((w) => w.split(' ')[1])).toEqual([
      '1/100',
      '10/100',
      '20/100',
      '30/100',
      '40/100',
      '50/100',
      '60/100',
      '70/100',
      '80/100',
      '90/100',
      '100/100'
    ])
    expect(written[1]).toMatch(/^train 10\/100 \(\d+ s, ETA \d+ s\) loss 10\n$/)
    expect(written[10]).toMatch(/^train 100\/100 \(\d+ s, ETA 0 s\) loss 100\n$/)
  })

  it('writes again after 30 seconds without a new tenth', () => {
    vi.useFakeTimers()
    try {
      const { written, stream } = plain()
      const bar = _.make(stream)('eval', 1000)
      bar.update(1, 'a')
      bar.update(2, 'b')
      vi.advanceTimersByTime(31_000)
      bar.update(3, 'c')
      expect(written.map((w) => w.split(' ')[1])).toEqual(['1/1000', '3/1000'])
    } finally {
      vi.useRealTimers()
    }
  })
})

describe('Interrupt.onInterrupt', () => {
  it('the first Ctrl-C asks for a stop and says so; released, it listens no more', () => {
    const notes: string[] = []
    const before = process.listenerCount('SIGINT')
    const stop = Interrupt.onInterrupt((t) => void notes.push(t))
    expect(stop.requested()).toBe(false)
    process.emit('SIGINT')
    expect(stop.requested()).toBe(true)
    expect(notes).toEqual(['\nstopping after the current iteration (Ctrl-C again to stop now)\n'])
    stop.release()
    expect(process.listenerCount('SIGINT')).toBe(before)
  })
})
