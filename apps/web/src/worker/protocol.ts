/**
 * The messages between the page and its worker (the worker trains, plays and inspects; the page
 * draws). Plain data only: everything crosses `postMessage` by structured clone.
 */
import type { EnvEntry } from '@mtrl/core'
import type { BackendParity } from '@mtrl/trainer-rl'

/** Which TensorFlow.js backend runs the worker: `auto` takes the best the browser offers. */
export type BackendChoice = 'auto' | 'webgpu' | 'webgl' | 'wasm'

/** The backend the worker runs on, and why (what `mtrl info` says in Node). */
export interface BackendReport {
  readonly name: string
  /** Threads and SIMD for wasm, the adapter or renderer for WebGPU/WebGL, and what was skipped. */
  readonly detail: string
  readonly crossOriginIsolated: boolean
}

/**
 * The page's check of its backend against the cpu backend's reference kernels (`parity.ts`):
 * every measure with its tolerance, the tensors the backend's runs left behind, the time taken.
 */
export interface ParityReport {
  readonly backend: string
  readonly measures: ReadonlyArray<BackendParity.Measure>
  readonly leaked: number
  readonly seconds: number
}

/** An environment as a recipe names it (`{ kind: 'textworld', settings: 'w2-o3-q4' }`, `{ kind: 'alfworld', settings: {...} }`), decoded by the worker. */
export interface EnvChoice {
  readonly kind: string
  readonly [field: string]: unknown
}

/** An environment kind the page offers (a registered kind's `page` entry: `@mtrl/recipe` `EnvConfig.entries()`). */
export interface EnvKind extends EnvEntry.PageEntry {
  readonly kind: string
}

/** One move in a game: who made it, the command, and what the game answered. */
export interface Move {
  readonly by: 'human' | 'agent'
  readonly command: string
  readonly observation: string
  readonly reward: number
  readonly valid: boolean
}

/** A game in the Play panel. */
export interface GameState {
  readonly env: string
  readonly seed: number
  readonly goal: string
  readonly start: string
  readonly moves: ReadonlyArray<Move>
  readonly done: boolean
  readonly won: boolean
  readonly score: number
  readonly maxScore: number
  readonly turnsLeft: number
  readonly admissible: ReadonlyArray<string>
}

/** A token of an inspected episode: its text, whether it got gradient, and its numbers. */
export interface InspectedToken {
  readonly text: string
  readonly kind: 'prompt' | 'observation' | 'action'
  /** In the action mask (trained on). */
  readonly mask: boolean
  readonly turn: number
  /** The sampler's log-probability (action tokens). */
  readonly logprob?: number
  readonly advantage?: number
  /** The critic's value estimate (agents with a critic). */
  readonly value?: number
}

/** One turn's summary. */
export interface InspectedTurn {
  readonly action: string
  readonly reward: number
  readonly valid: boolean
}

/** One episode of an inspected group. */
export interface InspectedEpisode {
  readonly seed: number
  readonly won: boolean
  readonly return: number
  readonly tokens: ReadonlyArray<InspectedToken>
  readonly turns: ReadonlyArray<InspectedTurn>
}

/** A group of episodes on one game, with the estimator's advantages. */
export interface Inspection {
  readonly env: string
  readonly seed: number
  readonly estimator: string
  readonly episodes: ReadonlyArray<InspectedEpisode>
}

/** A file of a checkpoint folder (or a zip of one), as dropped on the page. */
export interface DroppedFile {
  readonly name: string
  readonly bytes: Uint8Array
}

/** Held-out greedy evaluation of the current agent: success and each episode's actions. */
export interface Evaluation {
  readonly env: string
  readonly success: number
  readonly episodes: ReadonlyArray<{ readonly seed: number; readonly won: boolean; readonly actions: ReadonlyArray<string> }>
}

/**
 * Page -> worker. Requests are handled one at a time, in order; a `train` returns once the run
 * has started, so `play`, `inspect`, `evaluate` and `load` can run beside a training (with the
 * agent the page had before it: the run's agent becomes the page's when the run ends or stops).
 */
export type Request =
  | { readonly type: 'init'; readonly backend: BackendChoice }
  | { readonly type: 'train'; readonly recipe: unknown }
  | { readonly type: 'stop' }
  | { readonly type: 'resume' }
  | { readonly type: 'save' }
  | { readonly type: 'load'; readonly files: ReadonlyArray<DroppedFile> }
  | { readonly type: 'evaluate'; readonly env: EnvChoice; readonly episodes: number; readonly split: 'validation' | 'test' }
  | { readonly type: 'play'; readonly env: EnvChoice; readonly seed: number }
  | { readonly type: 'move'; readonly command?: string }
  | { readonly type: 'inspect'; readonly env: EnvChoice; readonly seed: number; readonly groupSize: number; readonly estimator: 'grpo' | 'rloo' }
  /** Checks the worker's backend against cpu (not while a training runs: it switches backends). */
  | { readonly type: 'parity' }

/** What the worker is doing. */
export type Status = 'starting' | 'idle' | 'training' | 'stopping' | 'stopped' | 'finished' | 'failed'

/** Worker -> page. */
export type Event =
  | { readonly type: 'ready'; readonly backend: BackendReport; readonly envs: ReadonlyArray<EnvKind> }
  | { readonly type: 'status'; readonly status: Status; readonly message?: string }
  | { readonly type: 'line'; readonly text: string }
  /** A record of the run's metrics log as it is written (`kind`: sft, sft-epoch, rl, eval). */
  | { readonly type: 'metric'; readonly record: Readonly<Record<string, unknown>> }
  | { readonly type: 'agent'; readonly description: string }
  | { readonly type: 'checkpoint'; readonly name: string; readonly zip: Uint8Array }
  | { readonly type: 'evaluation'; readonly evaluation: Evaluation }
  | { readonly type: 'game'; readonly game: GameState }
  | { readonly type: 'inspection'; readonly inspection: Inspection }
  | { readonly type: 'parity'; readonly report: ParityReport }
  | { readonly type: 'error'; readonly message: string }
