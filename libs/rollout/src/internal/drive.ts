/**
 * The lockstep loop behind `Rollout.run`.
 */
import type { Env, EnvError, Trajectory } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import * as ActionFormat from '../ActionFormat.js'
import type { Generator } from '../Generator.js'
import * as Layout from '../Layout.js'
import * as Memory from '../Memory.js'
import { slotRng, streamsOf, type Ending, type Episode, type Input, type Options, type Result } from '../Rollout.js'
import * as RolloutMetrics from '../RolloutMetrics.js'

interface Open {
  readonly slot: number
  readonly index: number
  readonly env: Env.Env
  readonly seed: number
  readonly groupId: string
  readonly goal: string
  readonly segments: Trajectory.Segment[]
  readonly turns: Trajectory.Turn[]
  readonly rewards: number[]
  readonly samples: Trajectory.Trajectory[]
  readonly past: Memory.PastTurn[]
  current: string
  admissible: ReadonlyArray<string> | undefined
  readonly replies: Array<{ readonly reasoning: string; readonly action: string }>
}

const now = (): number => performance.now() / 1000

/** Runs the rollout; the first environment failure ends it as a value (`Left`). */
export const drive = async (options: Options, generator: Generator, input: Input): Promise<E.Either<EnvError.EnvError, Result>> => {
  const { session, template, tokenizer, contextLength } = generator
  const parse = ActionFormat.parse(options.actionFormat)
  const system = Layout.system(options.systemPrompt, options.actionFormat)
  const stop = new Set(template.stopTokens)
  const windowed = options.memory._tag === 'window'
  const windowTurns = options.memory._tag === 'window' ? options.memory.turns : 0
  const slots = input.envs.length
  const streams = streamsOf(input)
  const rngs = input.envs.map((_, slot) => slotRng(streams, slot))
  const slotTurns = new Array<number>(slots).fill(0)
  const finished: Episode[] = []
  let generatedTokens = 0
  let contextTokens = 0
  let cutOff = 0
  let hackingPairs = 0
  let pairs = 0
  let failed: EnvError.EnvError | undefined
  const start = now()

  const exploreRate = options.exploreRate ?? 0
  const replyTokens = Layout.replyTokens(template, tokenizer)
  /** An exploration move's tokens: the action written in the action format, as an expert's reply is. */
  const exploredTokens = (action: string): Int32Array => replyTokens(Layout.reply(options.actionFormat, action))

  const fits = (slot: number, extra: number): boolean => session.length(slot) + extra + options.maxNewTokens <= contextLength

  const finish = (open: Open, won: boolean, ending: Ending): void => {
    const truncated = ending !== 'done'
    if (options.actionFormat === 'tagged') {
      const h = RolloutMetrics.actionHacking(open.replies)
      hackingPairs += h.hacked
      pairs += h.pairs
    }
    const trajectory: Trajectory.Trajectory = {
      env: open.env.spec.name,
      seed: open.seed,
      groupId: open.groupId,
      segments: windowed ? [] : open.segments,
      turns: open.turns,
      turnRewards: open.rewards,
      won,
      truncated
    }
    finished.push({ trajectory, samples: windowed ? open.samples : [trajectory], slot: open.slot, index: open.index, ending })
  }

  // Starts the next episode of a slot; undefined when the slot is done.
  const begin = async (slot: number, index: number): Promise<Open | undefined> => {
    const env = input.envs[slot]!
    const group = Math.floor(slot / input.groupSize)
    const seed = seedOf(input.seeds, group, index)
    const reset = await env.reset(seed)()
    if (E.isLeft(reset)) {
      failed ??= reset.left
      return undefined
    }
    const observation = reset.right
    const open: Open = {
      slot, index, env, seed,
      groupId: `${env.spec.name}:${seed}`,
      goal: observation.goal,
      segments: [], turns: [], rewards: [], samples: [], past: [],
      current: observation.text,
      admissible: observation.info.admissibleActions,
      replies: []
    }
    if (!windowed) {
      session.reset(slot)
      const prompt = template.prompt(system, Layout.firstUser(observation.goal, observation.text))
      if (prompt.length + options.maxNewTokens > contextLength) {
        finish(open, false, 'contextLimit')
        return undefined
      }
      open.segments.push({ kind: 'prompt', turn: 0, tokens: prompt })
      pending.push([slot, prompt])
    }
    return open
  }

  const pending: Array<[number, Int32Array]> = []
  const flush = (): void => {
    if (pending.length === 0) return
    session.append(pending.map(([slot]) => slot), pending.map(([, tokens]) => tokens))
    for (const [, tokens] of pending) contextTokens += tokens.length
    pending.length = 0
  }

  const open = new Map<number, Open>()
  const started = await Promise.all(input.envs.map((_, slot) => begin(slot, 0)))
  started.forEach((episode, slot) => episode !== undefined && open.set(slot, episode))

  while (open.size > 0 && failed === undefined) {
    // Windowed memory: a fresh prompt per turn.
    if (windowed) {
      for (const [slot, episode] of [...open]) {
        const prompt = template.prompt(system, Memory.renderWindow(episode.goal, episode.past, episode.current, windowTurns))
        session.reset(slot)
        if (prompt.length + options.maxNewTokens > contextLength) {
          open.delete(slot)
          finish(episode, false, 'contextLimit')
          continue
        }
        episode.segments.length = 0
        episode.segments.push({ kind: 'prompt', turn: 0, tokens: prompt })
        pending.push([slot, prompt])
      }
    }
    flush()
    const active = [...open.keys()]
    if (active.length === 0) break
    // Exploration moves: an admissible action in place of the policy's sample (see `exploreRate`).
    const explored = new Map<number, { readonly action: string; readonly tokens: Int32Array }>()
    if (exploreRate > 0)
      for (const slot of active) {
        const admissible = open.get(slot)!.admissible
        if (admissible === undefined || admissible.length === 0 || rngs[slot]!.next() >= exploreRate) continue
        const action = admissible[rngs[slot]!.int(admissible.length)]!
        const tokens = exploredTokens(action)
        if (session.length(slot) + tokens.length <= contextLength) explored.set(slot, { action, tokens })
      }
    const sampled = explored.size === 0 ? active : active.filter((slot) => !explored.has(slot))
    const moves = [...explored].map(([slot, move]) => ({ slot, ...move }))
    if (moves.length > 0) {
      session.append(moves.map((m) => m.slot), moves.map((m) => m.tokens))
      for (const m of moves) contextTokens += m.tokens.length
    }
    const generations = sampled.length === 0 ? [] : session.generate(sampled, {
      maxNewTokens: options.maxNewTokens,
      temperature: options.temperature,
      ...(options.topK === undefined ? {} : { topK: options.topK }),
      ...(options.topP === undefined ? {} : { topP: options.topP }),
      stopTokens: template.stopTokens,
      rng: sampled.map((slot) => rngs[slot]!)
    })
    const sent = sampled.map((slot, i) => {
      const episode = open.get(slot)!
      const generation = generations[i]!
      generatedTokens += generation.tokens.length
      const last = generation.tokens[generation.tokens.length - 1]
      const body = generation.stopped && last !== undefined && stop.has(last) ? generation.tokens.subarray(0, generation.tokens.length - 1) : generation.tokens
      if (!generation.stopped) cutOff++
      const reply = parse(tokenizer.decode(body))
      const parsed = reply.parsed
      const admissible = options.checkAdmissible !== true || episode.admissible === undefined || episode.admissible.includes(reply.action)
      const replace = options.defaultAction !== undefined && (!parsed || !admissible)
      const action = replace ? options.defaultAction! : reply.action
      episode.replies.push({ reasoning: reply.reasoning, action: reply.action })
      const turn = episode.turns.length
      episode.segments.push({ kind: 'action', turn: windowed ? 0 : turn, tokens: generation.tokens, logprobs: generation.logprobs })
      return { slot, episode, action, parsed, replaced: replace, explored: false }
    })
    for (const { slot, action, tokens } of moves) {
      const episode = open.get(slot)!
      episode.replies.push({ reasoning: '', action })
      episode.segments.push({ kind: 'action', turn: windowed ? 0 : episode.turns.length, tokens })
      sent.push({ slot, episode, action, parsed: true, replaced: false, explored: true })
    }
    const stepped = await Promise.all(sent.map(({ episode, action }) => episode.env.step(action)()))
    const stepFailure = stepped.find(E.isLeft)
    if (stepFailure !== undefined) {
      failed = stepFailure.left
      break
    }
    const results = stepped.map((r) => (r as E.Right<Env.StepResult>).right)
    for (const [i, { slot, episode, action, parsed, replaced, explored: move }] of sent.entries()) {
      const result = results[i]!
      const turn: Trajectory.Turn = {
        action,
        reward: result.reward,
        valid: result.info.valid && !replaced,
        parsed,
        score: result.info.score,
        maxScore: result.info.maxScore,
        ...(move ? { explored: true } : {})
      }
      episode.turns.push(turn)
      episode.rewards.push(result.reward)
      episode.admissible = result.info.admissibleActions
      slotTurns[slot] = slotTurns[slot]! + 1
      const budget = options.turnsPerSlot !== undefined && slotTurns[slot]! >= options.turnsPerSlot
      if (windowed) {
        const terminal = result.done
        episode.samples.push({
          env: episode.env.spec.name, seed: episode.seed, groupId: episode.groupId,
          segments: episode.segments.slice(), turns: [turn], turnRewards: [result.reward],
          won: terminal && result.won, truncated: !terminal
        })
        episode.past.push({ observation: episode.current, action })
        episode.current = result.observation
      }
      let ended = true
      if (result.done) finish(episode, result.won, 'done')
      else if (episode.turns.length >= options.maxTurns) finish(episode, false, 'turnLimit')
      else if (budget) finish(episode, false, 'slotBudget')
      else if (!windowed) {
        const observation = template.observation(result.observation)
        if (!fits(slot, observation.length)) finish(episode, false, 'contextLimit')
        else {
          episode.segments.push({ kind: 'observation', turn: episode.turns.length - 1, tokens: observation })
          pending.push([slot, observation])
          ended = false
        }
      } else ended = false
      if (ended) {
        open.delete(slot)
        if (options.turnsPerSlot !== undefined && !budget && episode.turns.length > 0) {
          const next = await begin(slot, episode.index + 1)
          if (next !== undefined) open.set(slot, next)
        }
      }
    }
  }
  if (failed !== undefined) return E.left(failed)
  flush()
  const seconds = now() - start
  finished.sort((a, b) => a.slot - b.slot || a.index - b.index)
  const metrics = RolloutMetrics.summarize(
    finished.map((e) => e.trajectory),
    { generatedTokens, contextTokens, cutOff, hackingPairs, pairs, seconds }
  )
  return E.right({ episodes: finished, metrics })
}

export const seedOf = (seeds: ReadonlyArray<number>, group: number, index: number): number => {
  const base = seeds[group]
  if (base === undefined) throw new RangeError(`Rollout: no seed for group ${group}`)
  return index === 0 ? base : (base + index * 1_000_003) % 2147483647
}
