/**
 * A recipe run in the worker: the library's own pipeline (`Pipeline.run` of @mtrl/recipe) into a
 * run folder of the in-memory file system, its metrics streamed to the page as they are written,
 * a stop at the next checkpoint on request, and a resume from it.
 */
import { RunDir } from '@mtrl/experiment'
import { Pipeline, Recipe } from '@mtrl/recipe'
import * as E from 'fp-ts/lib/Either.js'
import { browserSafe } from '../ui/recipes.js'
import { ensureShippedBase, usesShippedBase } from './base.js'
import type { Event } from './protocol.js'

/** The run folder of the page's training (one at a time). */
export const runPath = '/runs/page'

type MetricRecord = Readonly<Record<string, unknown>>

const stepKey = (record: MetricRecord): string => `${String(record['stage'])}:${String(record['step'])}`

/**
 * Where the page's metrics come from: SFT steps as they happen (the reporter's `step`), every
 * other record as the run folder gets it. The SFT steps the folder gets at the stage's end were
 * sent live already and are not sent again.
 */
const streams = (
  run: RunDir.RunDir,
  onMetric: (record: MetricRecord) => void
): { readonly run: RunDir.RunDir; readonly step: (record: MetricRecord) => void } => {
  const sent = new Set<string>()
  return {
    run: {
      ...run,
      appendMetrics: (record) => {
        run.appendMetrics(record)
        if (record['kind'] !== 'sft' || !sent.has(stepKey(record))) onMetric(record)
      }
    },
    step: (record) => {
      sent.add(stepKey(record))
      onMetric(record)
    }
  }
}

/** A training in progress: `stop` asks it to checkpoint and stop. */
export interface Training {
  readonly stop: () => void
  readonly done: Promise<void>
}

/**
 * Runs `recipeJson` (fresh) or continues the page's run (`resume`), posting lines, metrics and
 * the status. The recipe is made one the browser runs (one replica, no threads or scale-out:
 * `browserSafe`) and decoded first: a bad one is an `error` naming its field.
 */
export const start = (recipeJson: unknown, resume: boolean, backend: string, post: (event: Event) => void): Training | undefined => {
  let stopRequested = false
  const json = resume ? RunDir.open(runPath).readJson('recipe.json') : recipeJson
  const decoded = Recipe.decode(resume ? json : browserSafe(json))
  if (E.isLeft(decoded)) {
    post({ type: 'error', message: `recipe: ${decoded.left}` })
    return undefined
  }
  const run = resume ? RunDir.open(runPath) : RunDir.create('page', runPath)
  if (!resume) run.writeJson('recipe.json', decoded.right)
  post({ type: 'status', status: 'training' })
  const metrics = streams(run, (record) => post({ type: 'metric', record }))
  const options: Pipeline.Options = {
    run: metrics.run,
    backend: { name: backend },
    reporter: { line: (text) => post({ type: 'line', text }), step: metrics.step },
    resume,
    stop: { requested: () => stopRequested },
    report: false
  }
  const done = (async () => {
    try {
      if (usesShippedBase(decoded.right.model)) await ensureShippedBase()
      const result = await Pipeline.run(options)(decoded.right)()
      if (E.isRight(result)) post({ type: 'status', status: 'finished', message: `finished in ${result.right.seconds.toFixed(0)} s` })
      else if (result.left._tag === 'Stopped') post({ type: 'status', status: 'stopped', message: 'stopped at a checkpoint: resume continues from it' })
      else post({ type: 'status', status: 'failed', message: result.left.message })
    } catch (e) {
      post({ type: 'status', status: 'failed', message: e instanceof Error ? e.message : String(e) })
    }
  })()
  return {
    stop: () => {
      stopRequested = true
      post({ type: 'status', status: 'stopping' })
    },
    done
  }
}
