/**
 * The state of one rollout as the lockstep loop plays it: what stays fixed (options, the
 * policy's generator, the memory layout, the slots' random streams) and what changes (the open
 * episodes, the finished ones, the running totals, the first environment failure).
 */
import type { EnvError, Rng } from '@mtrl/core'
import * as ActionFormat from '../ActionFormat.js'
import type { Generator } from '../Generator.js'
import * as Layout from '../Layout.js'
import type * as Memory from '../Memory.js'
import { slotRng, streamsOf, type Episode, type Input, type Options } from '../Rollout.js'
import { contextQueue, type ContextQueue } from './contextQueue.js'
import { fullHistory } from './fullHistory.js'
import type { LayoutContext, MemoryLayout } from './memoryLayout.js'
import { memoryWindow } from './memoryWindow.js'
import type { OpenEpisode } from './openEpisode.js'
import { emptyTally, type Tally } from './tally.js'

/** One rollout's state; the fields that change are updated in place. */
export interface RolloutState {
  readonly options: Options
  readonly generator: Generator
  readonly input: Input
  readonly layout: MemoryLayout
  /** Prompts and observations waiting to enter the slots' contexts. */
  readonly queue: ContextQueue
  readonly tally: Tally
  /** Reads a reply in the action format. */
  readonly parse: (reply: string) => ActionFormat.Parsed
  /** The chat template's stop tokens. */
  readonly stop: ReadonlySet<number>
  /** An exploration move's tokens: the action written in the action format, as an expert's reply is. */
  readonly moveTokens: (action: string) => Int32Array
  /** Each slot's sampling stream. */
  readonly rngs: ReadonlyArray<Rng.Rng>
  /** The turns each slot has played, over all its episodes (fixed-turn batching). */
  readonly slotTurns: number[]
  /** The episode each slot is playing, in the order the episodes started. */
  readonly open: Map<number, OpenEpisode>
  readonly finished: Episode[]
  /** The first environment failure: it ends the rollout. */
  failed: EnvError.EnvError | undefined
}

/** The layout of the memory policy `memory`. */
const memoryLayout = (memory: Memory.Memory, context: LayoutContext): MemoryLayout => {
  switch (memory._tag) {
    case 'full':
      return fullHistory(context)
    case 'window':
      return memoryWindow(context, memory.turns)
  }
}

/** The state of a rollout before any episode starts; draws the sampling key from `input.rng`, if given. */
export const makeRolloutState = (options: Options, generator: Generator, input: Input): RolloutState => {
  const { session, template, tokenizer, contextLength } = generator
  const system = Layout.system(options.systemPrompt, options.actionFormat)
  const streams = streamsOf(input)
  const replyTokens = Layout.replyTokens(template, tokenizer)
  const tally = emptyTally()
  const queue = contextQueue(session, tally)
  return {
    options,
    generator,
    input,
    layout: memoryLayout(options.memory, { session, template, system, maxNewTokens: options.maxNewTokens, contextLength, queue }),
    queue,
    tally,
    parse: ActionFormat.parse(options.actionFormat),
    stop: new Set(template.stopTokens),
    moveTokens: (action) => replyTokens(Layout.reply(options.actionFormat, action)),
    rngs: input.envs.map((_, slot) => slotRng(streams, slot)),
    slotTurns: new Array<number>(input.envs.length).fill(0),
    open: new Map(),
    finished: [],
    failed: undefined
  }
}
