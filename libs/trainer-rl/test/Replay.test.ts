import { describe, expect, it } from 'vitest'
import * as Replay from '../src/Replay.js'

const counter = (start: number) => {
  let next = start
  const calls: number[] = []
  return { fresh: () => (calls.push(next), next++), calls }
}

describe('Replay', () => {
  it('draws floor(share x count) seeds from the head of the queue, most recent loss first, and fresh ones for the rest', () => {
    const { fresh, calls } = counter(100)
    const queue: Replay.Queue = [
      { seed: 7, replays: 0 },
      { seed: 8, replays: 1 },
      { seed: 9, replays: 0 }
    ]
    const drawn = Replay.draw({ share: 0.5, attempts: 3 }, 5, fresh)(queue)
    expect(drawn.seeds).toEqual([7, 8, 100, 101, 102])
    expect(drawn.replays).toEqual([1, 2, 0, 0, 0])
    expect(drawn.queue).toEqual([{ seed: 9, replays: 0 }])
    expect(calls).toEqual([100, 101, 102]) // the task stream advances by the fresh seeds only
  })

  it('draws fresh seeds where the queue is short, and only fresh ones with share 0', () => {
    expect(Replay.draw({ share: 1, attempts: 1 }, 3, counter(0).fresh)([{ seed: 5, replays: 0 }]).seeds).toEqual([5, 0, 1])
    const off = Replay.draw(Replay.off, 3, counter(0).fresh)([{ seed: 5, replays: 0 }])
    expect(off.seeds).toEqual([0, 1, 2])
    expect(off.replays).toEqual([0, 0, 0])
  })

  it('queues the lost games ahead of older losses; a replayed game re-enters until replayed `attempts` times', () => {
    const options = { share: 0.5, attempts: 2 }
    const drawn: Replay.Draw = { seeds: [1, 2, 3, 4, 5], replays: [1, 2, 0, 0, 0], queue: [{ seed: 9, replays: 0 }] }
    const next = Replay.record(options, 10, drawn, [true, true, true, false, true])(drawn.queue)
    // seed 1 lost its first replay: once more; seed 2 lost its second: done; 4 was won
    expect(next).toEqual([
      { seed: 1, replays: 1 },
      { seed: 3, replays: 0 },
      { seed: 5, replays: 0 },
      { seed: 9, replays: 0 }
    ])
    expect(Replay.draw(options, 4, counter(50).fresh)(next).replays).toEqual([2, 1, 0, 0])
  })

  it('keeps at most `capacity` games (the oldest drop), and nothing with replay off', () => {
    const drawn: Replay.Draw = { seeds: [1, 2, 3], replays: [0, 0, 0], queue: [{ seed: 9, replays: 0 }] }
    expect(Replay.record({ share: 0.25, attempts: 1 }, 2, drawn, [true, true, true])(drawn.queue).map((e) => e.seed)).toEqual([1, 2])
    expect(Replay.record(Replay.off, 2, drawn, [true, true, true])(drawn.queue)).toEqual([])
  })

  it('replays a game at most 1 + attempts times in all, whatever happens', () => {
    const options = { share: 1, attempts: 3 }
    let queue: Replay.Queue = []
    const plays = new Map<number, number>()
    const { fresh } = counter(0)
    for (let i = 0; i < 20; i++) {
      const drawn = Replay.draw(options, 4, fresh)(queue)
      for (const s of drawn.seeds) plays.set(s, (plays.get(s) ?? 0) + 1)
      queue = Replay.record(
        options,
        4,
        drawn,
        drawn.seeds.map(() => true)
      )(drawn.queue) // every game lost
    }
    expect(Math.max(...plays.values())).toBe(1 + options.attempts)
  })
})
