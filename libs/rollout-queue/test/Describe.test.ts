import { describe, expect, it } from 'vitest'
import * as LocalWorkers from '../src/LocalWorkers.js'
import * as Worker from '../src/Worker.js'

describe('one line per event and error, as mtrl train and mtrl worker print them', () => {
  it('says what scale-out started and why it could not', () => {
    expect(LocalWorkers.describeEvent('wasm')({ _tag: 'ServerStarted', url: 'redis://127.0.0.1:6390' })).toBe(
      'scale-out: local redis-server at redis://127.0.0.1:6390'
    )
    expect([1, 2].map((count) => LocalWorkers.describeEvent('wasm')({ _tag: 'WorkersStarted', count }))).toEqual([
      'scale-out: 1 local worker process on wasm',
      'scale-out: 2 local worker processes on wasm'
    ])
    expect(LocalWorkers.describeError({ _tag: 'WorkerExited', name: 'local-1', code: 3, stderr: 'no backend' })).toBe(
      'mtrl worker local-1 exited with 3: no backend'
    )
  })

  it('says what a worker does with each job', () => {
    expect(Worker.describe({ _tag: 'Started', job: 'j1', attempt: 2, episodes: 8 })).toBe('job j1: 8 episodes (attempt 2)')
    expect(Worker.describe({ _tag: 'Finished', job: 'j1', episodes: 8, seconds: 2.06, tokensPerSecond: 339.6 })).toBe(
      'job j1: done in 2.1 s (340 generated tok/s)'
    )
    expect(Worker.describe({ _tag: 'Failed', job: 'j1', reason: 'env gone' })).toBe('job j1: failed: env gone')
  })
})
