/**
 * Training an agent written as code in one call, from a program rather than the CLI: the agent
 * function plays every RL stage of a recipe through the policy's OpenAI endpoint (`@mtrl/agent-rl`
 * `Play`), and the whole pipeline runs as `mtrl train` runs it (SFT stages, RL stages,
 * evaluations, checkpoints, a run folder that `mtrl resume` continues).
 *
 * As every library, it computes on the TensorFlow.js backend the program chose (`@mtrl/backend`
 * chooses as `mtrl train` does; `ThreadInit` starts the replica threads on the same one).
 *
 * @example
 * import { AgentRl } from '@mtrl/recipe'
 * import type { Replicas } from '@mtrl/trainer-sft'
 * import type { Play } from '@mtrl/agent-rl'
 * declare const agent: Play.Agent
 * const backend = await Backend.select('wasm')()
 * if (backend._tag === 'Right') {
 *   const replicaInit = ThreadInit.init(backend.right.name)
 *   const summary = await AgentRl.train({ agent, recipe: 'recipes/agents/textworld-agent.json', backend: backend.right, replicaInit })
 * }
 *
 * @since 0.1.0
 */
import type { Play } from '@mtrl/agent-rl'
import type { Replicas } from '@mtrl/trainer-sft'
import { RunDir } from '@mtrl/experiment'
import * as E from 'fp-ts/lib/Either.js'
import { readFileSync } from 'node:fs'
import * as Pipeline from './Pipeline.js'
import * as Recipe from './Recipe.js'

/**
 * What {@link train} needs: the `agent`; the `recipe` (a JSON value or the path of a JSON file);
 * where to write the run (`runDir`, default `runs/<name>-<time>/`); the `backend` the program
 * activated (its name is recorded) and what replica threads import first (`replicaInit`: without
 * it, stages with `replicas` > 1 start their threads on TensorFlow.js's default); `line` gets the progress lines
 * (default: none; a library writes nothing to the console); `stop` is asked after every iteration (true: checkpoint and stop).
 *
 * @category models
 * @since 0.1.0
 */
export interface TrainOptions {
  readonly agent: Play.Agent
  readonly recipe: unknown
  readonly runDir?: string
  readonly backend: Pipeline.BackendInfo
  readonly replicaInit?: Replicas.Init
  readonly line?: (text: string) => void
  readonly stop?: () => boolean
}

/** The name the agent goes by in the recipe's RL stages (`"agent"`), looked up before any module. */
const AGENT = '<the agent given to AgentRl.train>'

/**
 * The recipe with every RL stage played by the given agent (a stage naming its own agent module
 * keeps it).
 *
 * @category combinators
 * @since 0.1.0
 */
export const withAgent = (recipe: Recipe.Resolved): Recipe.Resolved => ({
  ...recipe,
  stages: recipe.stages.map((s) => (s.kind === 'rl' && s.agent === undefined ? { ...s, agent: AGENT } : s))
})

/** The recipe a value or a file gives, or why not. */
const recipeOf = (recipe: unknown): E.Either<string, Recipe.Resolved> => {
  if (typeof recipe !== 'string') return Recipe.decode(recipe)
  let json: unknown
  try {
    json = JSON.parse(readFileSync(recipe, 'utf8'))
  } catch (error) {
    return E.left(`${recipe}: ${error instanceof Error ? error.message : String(error)}`)
  }
  return E.mapLeft((e: string) => `${recipe}: ${e}`)(Recipe.decode(json))
}

/**
 * Runs the recipe with the agent playing its RL stages (see the module comment); the run's
 * summary (evaluations after each stage) or why it failed.
 *
 * @category constructors
 * @since 0.1.0
 */
export const train = async (options: TrainOptions): Promise<E.Either<string, Pipeline.Summary>> => {
  const decoded = recipeOf(options.recipe)
  if (E.isLeft(decoded)) return decoded
  if (!decoded.right.stages.some((s) => s.kind === 'rl')) return E.left(`${decoded.right.name}: the recipe has no rl stage for the agent to play`)
  const recipe = withAgent(decoded.right)
  const run = RunDir.create(recipe.name, options.runDir)
  run.writeJson('recipe.json', recipe)
  run.writeJson('backend.json', options.backend)
  const line = options.line ?? (() => undefined)
  const summary = await Pipeline.run({
    run,
    backend: options.backend,
    reporter: { line },
    ...(options.replicaInit === undefined ? {} : { replicaInit: options.replicaInit }),
    agents: { [AGENT]: options.agent },
    ...(options.stop === undefined ? {} : { stop: { requested: options.stop } })
  })(recipe)()
  return E.mapLeft((e: { readonly message: string }) => e.message)(summary)
}
