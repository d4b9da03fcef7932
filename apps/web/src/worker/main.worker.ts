/**
 * The page's worker: the backend, the training, the agent, the game and the inspector. The page
 * stays responsive because everything that computes is here. Messages: `protocol.ts`.
 */
import '../shims/process.js'
import { Progress, RunDir } from '@mtrl/experiment'
import { Agent, PolicyError } from '@mtrl/policy'
import { EnvConfig } from '@mtrl/recipe'
import type { Rollout } from '@mtrl/rollout'
import * as E from 'fp-ts/lib/Either.js'
import { existsSync } from 'node:fs'
import { activate } from './backend.js'
import { envKinds } from './envKinds.js'
import { evaluate } from './evaluate.js'
import { writeCheckpoint, zipFolder } from './files.js'
import { inspect } from './inspect.js'
import { check } from './parity.js'
import * as Play from './play.js'
import type { Event, Request } from './protocol.js'
import * as Training from './training.js'

const post = (event: Event): void => {
  const transfer = event.type === 'checkpoint' ? [event.zip.buffer] : []
  ;(self as unknown as { postMessage: (m: unknown, t: ReadonlyArray<unknown>) => void }).postMessage(event, transfer)
}

/** Where a dropped checkpoint is written. */
const loadedPath = '/loaded/checkpoint'

/** The agent's reading and writing settings when its run's recipe does not say (the shipped recipes'). */
const defaultRollout: Partial<Rollout.Options> = { systemPrompt: '', temperature: 0.7, maxNewTokens: 10, actionFormat: 'plain' }

const state: {
  backend: string
  training?: Training.Training
  /** The checkpoint folder the page plays with: the run's last finished stage, or a loaded one. */
  agentPath?: string
  agent?: { readonly path: string; readonly agent: Agent.Agent }
  rollout: Partial<Rollout.Options>
  game?: Play.Game
} = { backend: 'none', rollout: defaultRollout }

const runRollout = (): Partial<Rollout.Options> => {
  const recipe = RunDir.open(Training.runPath).readJson('recipe.json') as { rollout?: Partial<Rollout.Options> }
  return { ...defaultRollout, ...recipe.rollout }
}

/** The agent at `state.agentPath`, loaded once per path. */
const currentAgent = async (): Promise<E.Either<string, Agent.Agent>> => {
  const path = state.agentPath
  if (path === undefined) return E.left('no agent yet: train one or load a checkpoint')
  if (state.agent?.path === path) return E.right(state.agent.agent)
  const loaded = await Agent.load(path)()
  if (E.isLeft(loaded)) return E.left(PolicyError.message(loaded.left))
  state.agent?.agent.dispose()
  state.agent = { path, agent: loaded.right }
  return E.right(loaded.right)
}

/** After a run ends or stops: its last finished stage is the page's agent. */
const adoptRun = (): void => {
  const run = RunDir.open(Training.runPath)
  const path = existsSync(run.file('checkpoints')) ? Progress.finalCheckpoint(run) : undefined
  if (path === undefined) return
  state.agentPath = path
  state.rollout = runRollout()
  post({ type: 'agent', description: `the run's agent after stage ${Number(path.split('/').at(-2)?.replace('stage-', '')) + 1} (${path})` })
}

const train = (recipe: unknown, resume: boolean): void => {
  if (state.training !== undefined) return post({ type: 'error', message: 'a training is running: stop it first' })
  const training = Training.start(recipe, resume, state.backend, post)
  if (training === undefined) return
  state.training = training
  void training.done.then(() => {
    state.training = undefined
    adoptRun()
  })
}

const orError = <A>(result: E.Either<string, A>, f: (a: A) => void): void =>
  E.isLeft(result) ? post({ type: 'error', message: result.left }) : f(result.right)

const handle = async (request: Request): Promise<void> => {
  switch (request.type) {
    case 'init': {
      const backend = await activate(request.backend)
      state.backend = backend.name
      post({ type: 'ready', backend, envs: envKinds(EnvConfig.entries()) })
      return post({ type: 'status', status: 'idle' })
    }
    case 'train':
      return train(request.recipe, false)
    case 'resume':
      return train(undefined, true)
    case 'stop':
      return state.training?.stop()
    case 'save': {
      if (state.agentPath === undefined) return post({ type: 'error', message: 'no checkpoint yet: a stage must finish first' })
      return post({ type: 'checkpoint', name: 'mtrl-checkpoint.zip', zip: zipFolder(state.agentPath) })
    }
    case 'load': {
      const missing = writeCheckpoint(loadedPath, request.files)
      if (missing !== undefined) return post({ type: 'error', message: missing })
      state.agentPath = loadedPath
      // a checkpoint loaded over the previous one at the same path: free the old agent, load the new
      if (state.agent?.path === loadedPath) {
        state.agent.agent.dispose()
        state.agent = undefined
      }
      state.rollout = defaultRollout
      return orError(await currentAgent(), (agent) => {
        const c = agent.policy.config
        post({ type: 'agent', description: `loaded checkpoint: ${c.layers} layers, d ${c.dModel}, vocab ${agent.tokenizer.vocabSize}` })
      })
    }
    case 'evaluate':
      return orError(await currentAgent(), async (agent) =>
        orError(await evaluate(agent, { env: request.env, episodes: request.episodes, split: request.split, rollout: state.rollout }), (evaluation) =>
          post({ type: 'evaluation', evaluation })
        )
      )
    case 'play': {
      await state.game?.close()
      state.game = undefined
      const agent = state.agentPath === undefined ? E.right(undefined) : await currentAgent()
      if (E.isLeft(agent)) return post({ type: 'error', message: agent.left })
      const style = {
        systemPrompt: state.rollout.systemPrompt ?? '',
        actionFormat: state.rollout.actionFormat ?? 'plain',
        maxNewTokens: state.rollout.maxNewTokens ?? 10
      }
      return orError(await Play.start(request.env, request.seed, agent.right, style), (game) => {
        state.game = game
        post({ type: 'game', game: game.state() })
      })
    }
    case 'move':
      if (state.game === undefined) return post({ type: 'error', message: 'no game: start one' })
      return orError(await state.game.move(request.command), (game) => post({ type: 'game', game }))
    case 'inspect':
      return orError(await currentAgent(), async (agent) =>
        orError(await inspect(agent, request.env, request.seed, request.groupSize, request.estimator, state.rollout), (inspection) =>
          post({ type: 'inspection', inspection })
        )
      )
    case 'parity':
      // the check switches the worker's backend to cpu and back: a running training would compute on the wrong one
      if (state.training !== undefined) return post({ type: 'error', message: 'a training is running: stop it before checking the backend' })
      return post({ type: 'parity', report: await check(state.backend) })
  }
}

/** One request at a time, in order (a game's moves, a load before its evaluation). */
let queue: Promise<void> = Promise.resolve()
self.onmessage = (message: MessageEvent<Request>) => {
  queue = queue.then(() => handle(message.data)).catch((e: unknown) => post({ type: 'error', message: e instanceof Error ? e.message : String(e) }))
}
