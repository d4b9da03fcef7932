import { ThreadInit } from '@mtrl/backend'
import { Rng, type Env, type EnvError } from '@mtrl/core'
import { ChatTemplate, Policy, Sampler } from '@mtrl/policy'
import { Rollout, type Generator } from '@mtrl/rollout'
import { expectNoLeak, TestBackend } from '@mtrl/testing'
import { Config, Kl, Trainer } from '@mtrl/trainer-rl'
import * as E from 'fp-ts/lib/Either.js'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Runner } from '../src/index.js'
import * as _ from '../src/Threads.js'
import { decode, type Spec } from './fixtures/threadEnvs.js'
import * as World from './fixtures/world.js'

// wasm, in this thread and in the rollout threads: the trainer's update is ~50x faster than on cpu here
beforeAll(() => TestBackend.use('wasm'))

const envsUrl = new URL('./fixtures/threadEnvs.ts', import.meta.url).href
const init = ThreadInit.init('wasm')
const spec: Spec = { textworld: 'w1-o2-q2' }
const template = ChatTemplate.make(World.tokenizer)

const envsOf = (s: Spec, count: number): Env.Env[] => {
  const source = decode(s)
  if (E.isLeft(source)) throw new Error(source.left)
  return Array.from({ length: count }, () => source.right.make())
}

const withSession = async <A>(policy: Policy.Policy, slots: number, f: (generator: Generator.Generator) => Promise<A>): Promise<A> => {
  const session = Sampler.make(policy, { slots, maxLen: World.contextLength })
  try {
    return await f({ session, template, tokenizer: World.tokenizer, contextLength: World.contextLength })
  } finally {
    session.dispose()
  }
}

type Played = E.Either<EnvError.EnvError, Rollout.Result>

/** One thread: `Rollout.run` on a session of every slot. */
const alone = (policy: Policy.Policy, seeds: ReadonlyArray<number>, groupSize: number, rng: Rng.Rng, s: Spec = spec): Promise<Played> =>
  withSession(policy, seeds.length * groupSize, (g) => Rollout.run(World.rollout)(g)({ envs: envsOf(s, seeds.length * groupSize), seeds, groupSize, rng })())

/** The pool: this thread's share on a session of every slot (as a trainer's), the rest on the threads. */
const threaded = (
  pool: _.Pool,
  policy: Policy.Policy,
  seeds: ReadonlyArray<number>,
  groupSize: number,
  rng: Rng.Rng,
  s: Spec = spec
): Promise<E.Either<EnvError.EnvError, Runner.Result>> =>
  withSession(policy, seeds.length * groupSize, (g) => pool.play({ envs: envsOf(s, seeds.length * groupSize), seeds, groupSize, rng }, g)())

const started = async (threads: number, policy: Policy.Policy, s: Spec = spec, callerPlays = true): Promise<_.Pool> => {
  const pool = await _.start({ threads, policy, rollout: World.rollout, contextLength: World.contextLength, env: s, envs: envsUrl, init, callerPlays })()
  if (E.isLeft(pool)) throw new Error(_.message(pool.left))
  return pool.right
}

const right = <A>(x: E.Either<unknown, A>): A => {
  if (E.isLeft(x)) throw new Error(`expected a result, got ${JSON.stringify(x.left)}`)
  return x.right
}

const counts = (m: Rollout.Result['metrics']) => {
  const { seconds: _s, tokensPerSecond: _t, turnsPerSecond: _u, ...rest } = m
  return rest
}

/** Every sampler log-prob's bits, episode by episode (toEqual would take -0 for 0). */
const bits = (r: Rollout.Result): number[][] =>
  r.episodes.map((e) =>
    e.trajectory.segments.flatMap((s) => (s.logprobs === undefined ? [] : Array.from(new Uint32Array(Float32Array.from(s.logprobs).buffer))))
  )

/** A trainer of `policy` on 6 environments of the spec, played by `play` (default: in this thread). */
const trainerOn = (config: Config.Config, policy: Policy.Policy, play?: _.Pool['play']): Trainer.Trainer =>
  Trainer.make({
    config,
    policy,
    envs: envsOf(spec, 6),
    template,
    tokenizer: World.tokenizer,
    contextLength: World.contextLength,
    // a reward that differs between the episodes of a group, so every iteration moves the policy
    reward: (t) => t.turns.map((turn) => turn.action.length % 3),
    ...(play === undefined ? {} : { play })
  })

/** The trainers' configuration here: GRPO on 3 groups of 2, no KL term. */
const grpo = (overrides: Config.Overrides = {}): Config.Config =>
  Config.make({
    algorithm: 'grpo',
    kl: Kl.none,
    budget: { seedsPerIteration: 3, groupSize: 2 },
    rollout: World.rollout,
    policy: { lr: 1e-2 },
    seed: 9,
    ...overrides
  })

let policy: Policy.Policy
beforeAll(() => {
  policy = World.policy()
})
afterAll(() => policy?.dispose())

describe('Threads', () => {
  for (const threads of [2, 3]) {
    it(`with ${threads - 1} worker thread(s), plays the episodes of a one-thread Rollout.run token for token, in slot order, groups split unevenly`, async () => {
      const pool = await started(threads, policy)
      try {
        expect(pool.backends).toEqual(Array.from({ length: threads - 1 }, () => 'wasm'))
        const seeds = [11, 12, 13, 14, 15]
        const [rngA, rngB] = [Rng.make(7), Rng.make(7)]
        for (let iteration = 0; iteration < 2; iteration++) {
          const expected = right(await alone(policy, seeds, 3, rngA))
          // the calling thread's share allocates nothing it does not free
          const got = right(await expectNoLeak(() => threaded(pool, policy, seeds, 3, rngB)))
          expect(got.episodes).toEqual(expected.episodes)
          expect(bits(got)).toEqual(bits(expected))
          expect(counts(got.metrics)).toEqual(counts(expected.metrics))
          expect(rngB.state()).toEqual(rngA.state())
          expect(expected.metrics.turns).toBeGreaterThan(15)
          expect(new Set(expected.episodes.map((e) => e.trajectory.turns.map((t) => t.action).join('|'))).size).toBeGreaterThan(5)
          // 5 groups of 3: [3, 2] groups or [2, 2, 1], this thread's share first
          expect(got.jobs).toEqual(
            (threads === 2 ? [9, 6] : [6, 6, 3]).map((episodes, i) => expect.objectContaining({ id: i === 0 ? 'main' : `thread-${i}`, episodes }))
          )
        }
        // the weights did not change between the two calls: sent once to each thread
        expect(pool.weightsSent()).toBe(threads - 1)
      } finally {
        await pool.dispose()
      }
    })
  }

  it('sends the weights after they change, and the threads play with them: a changed policy gives the changed episodes', async () => {
    const p = World.policy(2)
    const other = World.policy(5)
    const pool = await started(2, p)
    try {
      const seeds = [1, 2, 3, 4]
      const before = right(await threaded(pool, p, seeds, 2, Rng.make(3)))
      for (const [name, v] of Object.entries(p.variables)) v.assign(other.variables[name]!)
      const expected = right(await alone(p, seeds, 2, Rng.make(3)))
      const got = right(await threaded(pool, p, seeds, 2, Rng.make(3)))
      expect(got.episodes).toEqual(expected.episodes)
      expect(bits(got)).toEqual(bits(expected))
      // the thread's half changed with the weights
      const theirs = (r: Rollout.Result) => bits(r).slice(4)
      expect(theirs(got)).not.toEqual(theirs(before))
      expect(pool.weightsSent()).toBe(2)
    } finally {
      await pool.dispose()
      p.dispose()
      other.dispose()
    }
  })

  it('an environment failure in a thread is the EnvError the one-thread rollout gives', async () => {
    const failing: Spec = { ...spec, failSeed: 4 }
    const pool = await started(2, policy, failing)
    try {
      const expected = await alone(policy, [1, 2, 3, 4], 2, Rng.make(1), failing)
      const got = await threaded(pool, policy, [1, 2, 3, 4], 2, Rng.make(1), failing)
      expect(E.isLeft(expected) && expected.left._tag).toBe('ResetFailed')
      expect(got).toEqual(expected)
      // the pool goes on
      expect(E.isRight(await threaded(pool, policy, [1, 2], 2, Rng.make(1), failing))).toBe(true)
    } finally {
      await pool.dispose()
    }
  })

  it('a thread that crashes fails the call, and every later one, with an error that says so (no hang); dispose stops the rest', async () => {
    const crashing: Spec = { ...spec, crashSeed: 44 }
    const pool = await started(3, policy, crashing)
    try {
      expect(pool.alive()).toBe(2)
      const got = await threaded(pool, policy, [1, 2, 44], 1, Rng.make(1), crashing)
      expect(E.isLeft(got) && got.left).toMatchObject({ _tag: 'Transport', call: 'rollout thread 2', reason: expect.stringMatching(/exited with code 7/) })
      expect(pool.alive()).toBe(1)
      const again = await threaded(pool, policy, [1, 2, 3], 1, Rng.make(1), crashing)
      expect(E.isLeft(again) && again.left).toMatchObject({ _tag: 'Transport', reason: expect.stringMatching(/exited with code 7/) })
    } finally {
      await pool.dispose()
    }
    expect(pool.alive()).toBe(0)
  })

  it("dispose closes the threads' environments and leaves no thread running; a thread that cannot build the environment spec fails the start with its reason", async () => {
    const closeLog = join(mkdtempSync(join(tmpdir(), 'mtrl-threads-')), 'closed.log')
    const logged: Spec = { ...spec, closeLog }
    const pool = await started(3, policy, logged)
    expect(pool.alive()).toBe(2)
    // 3 groups of 2: one to each thread, 2 environments each
    right(await threaded(pool, policy, [1, 2, 3], 2, Rng.make(1), { ...spec }))
    expect(existsSync(closeLog)).toBe(false)
    await pool.dispose()
    expect(pool.alive()).toBe(0)
    expect(readFileSync(closeLog, 'utf8')).toBe('closed\n'.repeat(4))
    const bad = await _.start({ threads: 2, policy, rollout: World.rollout, contextLength: World.contextLength, env: { nope: 1 }, envs: envsUrl, init })()
    expect(E.isLeft(bad) && _.message(bad.left)).toMatch(/rollout thread 1 did not start: .*expected \{ textworld/)
    await expect(_.start({ threads: 0, policy, rollout: World.rollout, contextLength: World.contextLength, env: spec, envs: envsUrl })()).rejects.toThrow(
      /positive integer/
    )
  })

  it('a trainer whose episodes the threads play takes the same steps as a one-thread trainer: same metrics but timings, same weights', async () => {
    const trainerOf = (play?: _.Pool['play']) => (p: Policy.Policy) => trainerOn(grpo(), p, play)
    const [pa, pb] = [World.policy(3), World.policy(3)]
    const pool = await started(2, pb)
    const a = trainerOf()(pa)
    const b = trainerOf(pool.play)(pb)
    try {
      const timeless = (m: Record<string, number>) => Object.fromEntries(Object.entries(m).filter(([k]) => !/^time\/|per_s|_per_second|tokens_per/.test(k)))
      for (let i = 0; i < 3; i++) {
        const [ma, mb] = [await Trainer.iterate(a)(), await Trainer.iterate(b)()]
        expect(timeless(right(mb) as never)).toEqual(timeless(right(ma) as never))
        expect(right(ma)['batch/samples']).toBeGreaterThan(0)
      }
      const host = (p: Policy.Policy) => [...Policy.toHost(p.variables)].map(([n, w]) => [n, Array.from(w.data)])
      expect(host(pb)).toEqual(host(pa))
      const initial = World.policy(3)
      expect(host(pa)).not.toEqual(host(initial))
      initial.dispose()
      // the weights changed after each update: sent before each of the 3 iterations
      expect(pool.weightsSent()).toBe(3)
    } finally {
      a.dispose()
      b.dispose()
      await pool.dispose()
      pa.dispose()
      pb.dispose()
    }
  })

  it('with the caller free (callerPlays: false), the worker threads play every share, token for token the one-thread rollout', async () => {
    const pool = await started(2, policy, spec, false)
    try {
      expect(pool.size).toBe(2)
      const seeds = [11, 12, 13, 14, 15]
      const expected = right(await alone(policy, seeds, 3, Rng.make(7)))
      const got = right(await threaded(pool, policy, seeds, 3, Rng.make(7)))
      expect(got.episodes).toEqual(expected.episodes)
      expect(bits(got)).toEqual(bits(expected))
      expect(got.jobs).toEqual([9, 6].map((episodes, i) => expect.objectContaining({ id: `thread-${i + 1}`, episodes })))
    } finally {
      await pool.dispose()
    }
  })

  it("a trainer that plays one iteration ahead on them (maxStaleness 1): iteration k + 1's episodes are the one-thread rollout of the weights before update k", async () => {
    const config = grpo({ maxStaleness: 1 })
    const p = World.policy(3)
    const pool = await started(2, p, spec, false)
    type Call = { readonly seeds: ReadonlyArray<number>; readonly rng: Rng.RngState; readonly weights: Map<string, Policy.HostTensor>; result?: Rollout.Result }
    const calls: Call[] = []
    const play: _.Pool['play'] = (input, generator) => {
      if (!('rng' in input)) throw new Error('the trainer passes its sampling stream')
      const call: Call = { seeds: [...input.seeds], rng: input.rng.state(), weights: Policy.toHost(p.variables) }
      calls.push(call)
      const task = pool.play(input, generator)
      return async () => {
        const r = await task()
        if (E.isRight(r)) call.result = r.right
        return r
      }
    }
    const trainer = trainerOn(config, p, play)
    const host = () => [...Policy.toHost(p.variables)].map(([n, w]) => [n, Array.from(w.data)])
    try {
      const after = [host()]
      const staleness: number[] = []
      for (let k = 0; k < 3; k++) {
        staleness.push(right(await Trainer.iterate(trainer, { following: 2 - k })())['rollout/staleness'])
        after.push(host())
      }
      expect(staleness).toEqual([0, 1, 1])
      expect(calls).toHaveLength(3)
      // call k + 1 started in iteration k, before its update: it sent the weights after update k - 1
      expect(calls.map((c) => [...c.weights].map(([n, w]) => [n, Array.from(w.data)]))).toEqual([after[0], after[0], after[1]])
      expect(after[1]).not.toEqual(after[0])
      for (const call of calls) {
        const copy = Policy.fromHost(p.config, call.weights, { tokenizer: World.tokenizer })
        try {
          const expected = right(await alone(copy, call.seeds, 2, Rng.fromState(call.rng)))
          expect(call.result!.episodes).toEqual(expected.episodes)
          expect(bits(call.result!)).toEqual(bits(expected))
        } finally {
          copy.dispose()
        }
      }
    } finally {
      trainer.dispose()
      await pool.dispose()
      p.dispose()
    }
  })
})
