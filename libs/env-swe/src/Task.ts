/**
 * The task stream: for a seed and a difficulty tier, a seed project with injected bugs, checked
 * by actually running its tests. A task is kept only if the original passes every test and the
 * mutant fails at least one (each single mutation must fail a test on its own too, so no part
 * of a task is a harmless no-op, and none may hang or flood). Verdicts are cached in memory and,
 * optionally, on disk, so a mutation is verified once.
 *
 * Tiers (as SWE-Gym buckets by gold-patch size): `easy` one mutation in one file, `medium` two
 * mutations in one file, `hard` two mutations in two different files.
 *
 * @since 0.1.0
 */
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Rng } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import * as t from 'io-ts'
import * as Corpus from './Corpus.js'
import * as Edit from './Edit.js'
import * as Mutation from './Mutation.js'
import * as Report from './Report.js'
import type * as Pool from './Pool.js'
import * as Sandbox from './Sandbox.js'
import * as Suite from './Suite.js'
import * as Workspace from './Workspace.js'

/** @category codecs @since 0.1.0 */
export const Tier = t.keyof({ easy: null, medium: null, hard: null })
/** @category models @since 0.1.0 */
export type Tier = t.TypeOf<typeof Tier>

/**
 * A repair task. `files` is the buggy repository; `gold` turns it back into the original;
 * `expected` are the qualified names (`file > test`) of the full suite; `failing` those the
 * mutant fails.
 *
 * @category models
 * @since 0.1.0
 */
export interface Task {
  readonly id: string
  readonly seed: number
  readonly tier: Tier
  readonly project: Corpus.Project
  readonly mutations: ReadonlyArray<Mutation.Mutation>
  readonly files: Readonly<Record<string, string>>
  readonly expected: ReadonlyArray<string>
  readonly failing: ReadonlyArray<string>
  readonly gold: ReadonlyArray<Edit.FileEdit>
}

/**
 * The outcome of running a variant's suite.
 *
 * @category models
 * @since 0.1.0
 */
export type Verdict =
  | { readonly _tag: 'AllPass'; readonly names: ReadonlyArray<string> }
  | { readonly _tag: 'SomeFail'; readonly names: ReadonlyArray<string>; readonly failing: ReadonlyArray<string> }
  | { readonly _tag: 'Broken'; readonly reason: string }

/**
 * Options of a generator.
 *
 * @category models
 * @since 0.1.0
 */
export interface GeneratorOptions {
  readonly pool: Pool.Pool
  readonly limits: Sandbox.Limits
  readonly guards?: ReadonlyArray<Sandbox.Guard>
  /** Restrict to these projects, ES-module ones included (default: the CommonJS corpus, `Corpus.projects`). */
  readonly projects?: ReadonlyArray<string>
  /** Keep verdicts on disk here too, across processes. */
  readonly cacheDir?: string
  /** Candidate mutations tried per project before moving to another (default 12). */
  readonly candidates?: number
}

/**
 * A generator with its verdict cache. `stats` counts sandbox runs and cache hits.
 *
 * @category models
 * @since 0.1.0
 */
export interface Generator {
  readonly generate: (seed: number, tier: Tier) => TE.TaskEither<string, Task>
  readonly verify: (project: Corpus.Project, mutations: ReadonlyArray<Mutation.Mutation>) => Promise<Verdict>
  readonly stats: () => { readonly runs: number; readonly hits: number }
}

const hashOf = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 24)

const projectHash = (p: Corpus.Project): string => hashOf(JSON.stringify(Object.entries(p.files).sort()))

const runVariant = async (
  options: GeneratorOptions,
  project: Corpus.Project,
  files: Readonly<Record<string, string>>,
  expected: ReadonlyArray<string> | undefined
): Promise<Verdict> => {
  const ws = Workspace.make(files)
  try {
    const r = await options.pool.run(
      Suite.run({ limits: options.limits, ...(options.guards === undefined ? {} : { guards: options.guards }) })(ws, Corpus.testSources(project))
    )()
    if (E.isLeft(r)) return { _tag: 'Broken', reason: Sandbox.errorMessage(r.left) }
    const bad = r.right.runs.find((x) => x.result.timedOut || x.result.outputExceeded)
    if (bad !== undefined) return { _tag: 'Broken', reason: bad.result.timedOut ? 'timeout' : 'output flood' }
    if (expected === undefined) {
      // The original: every file's report is accepted and every test in it passes.
      const names = r.right.outcomes.map(Suite.qualified)
      const rejected = r.right.runs.flatMap((x) =>
        E.isLeft(x.report) ? [`${x.file}: ${Report.describe(x.report.left)}\n${x.result.stderr.slice(0, 300)}`] : []
      )
      const clean = rejected.length === 0 && names.length > 0 && r.right.outcomes.every((o) => o.passed)
      return clean ? { _tag: 'AllPass', names } : { _tag: 'Broken', reason: `original does not pass cleanly: ${rejected.join(' ')}` }
    }
    // A variant: tests that did not report (a crash, a rejected report) count as failing.
    const { failing } = Suite.score(expected, r.right.outcomes)
    return failing.length === 0 ? { _tag: 'AllPass', names: expected } : { _tag: 'SomeFail', names: expected, failing }
  } finally {
    ws.dispose()
  }
}

/**
 * A task generator.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeGenerator = (options: GeneratorOptions): Generator => {
  const memo = new Map<string, Promise<Verdict>>()
  let runs = 0
  let hits = 0
  const projects = options.projects === undefined ? Corpus.projects : Corpus.all.filter((p) => options.projects!.includes(p.name))
  if (projects.length === 0) throw new RangeError(`Task.makeGenerator: no projects among ${JSON.stringify(options.projects)}`)
  const siteCache = new Map<string, ReadonlyArray<Mutation.Mutation>>()
  const sites = (p: Corpus.Project, file: string): ReadonlyArray<Mutation.Mutation> => {
    const k = `${p.name}/${file}`
    let s = siteCache.get(k)
    if (s === undefined) {
      s = Mutation.sitesOf(file, p.files[file]!)
      siteCache.set(k, s)
    }
    return s
  }

  const verify = (project: Corpus.Project, mutations: ReadonlyArray<Mutation.Mutation>): Promise<Verdict> => {
    const k = hashOf(`${projectHash(project)}|${JSON.stringify(options.limits.memoryMb)}|${mutations.map(Mutation.key).sort().join('|')}`)
    const hit = memo.get(k)
    if (hit !== undefined) {
      hits++
      return hit
    }
    const file = options.cacheDir === undefined ? undefined : path.join(options.cacheDir, `${k}.json`)
    const p = (async (): Promise<Verdict> => {
      if (file !== undefined && fs.existsSync(file)) {
        hits++
        return JSON.parse(fs.readFileSync(file, 'utf8')) as Verdict
      }
      let expected: ReadonlyArray<string> | undefined
      if (mutations.length > 0) {
        const original = await verify(project, [])
        if (original._tag !== 'AllPass') return original
        expected = original.names
      }
      runs++
      const v = await runVariant(options, project, Mutation.apply(mutations)(project.files), expected)
      if (file !== undefined && v._tag !== 'Broken') {
        fs.mkdirSync(options.cacheDir!, { recursive: true })
        fs.writeFileSync(file, JSON.stringify(v))
      }
      return v
    })()
    memo.set(k, p)
    return p
  }

  /** The first candidate (in shuffled order) that fails a test on its own. */
  const findFailing = async (rng: Rng.Rng, project: Corpus.Project, file: string, avoid: ReadonlyArray<Mutation.Mutation>) => {
    const limit = options.candidates ?? 12
    const candidates = Rng.shuffle(rng)(sites(project, file)).filter((m) => !avoid.some((a) => a.line === m.line && a.file === m.file))
    for (const m of candidates.slice(0, limit)) {
      if ((await verify(project, [m]))._tag === 'SomeFail') return m
    }
    return undefined
  }

  const generate =
    (seed: number, tier: Tier): TE.TaskEither<string, Task> =>
    async () => {
      const rng = Rng.make(seed)
      const eligible = tier === 'hard' ? projects.filter((p) => p.sources.length >= 2) : projects
      if (eligible.length === 0) return E.left(`no project has two source files for tier ${tier}`)
      for (let attempt = 0; attempt < 8; attempt++) {
        const project = Rng.pick(rng)(eligible)
        const original = await verify(project, [])
        if (original._tag !== 'AllPass') return E.left(`corpus project ${project.name} does not pass its own tests: ${JSON.stringify(original)}`)
        const files = Rng.shuffle(rng)(project.sources)
        const chosen: Mutation.Mutation[] = []
        const first = await findFailing(rng, project, files[0]!, [])
        if (first === undefined) continue
        chosen.push(first)
        if (tier !== 'easy') {
          const second = await findFailing(rng, project, tier === 'hard' ? files[1]! : files[0]!, chosen)
          if (second === undefined) continue
          chosen.push(second)
        }
        const combined = await verify(project, chosen)
        if (combined._tag !== 'SomeFail') continue
        const mutant = Mutation.apply(chosen)(project.files)
        const gold = project.sources.flatMap((f) => {
          const e = Edit.diff(f, mutant[f]!, project.files[f]!)
          return e === undefined ? [] : [e]
        })
        return E.right({
          id: `${project.name}/${tier}/${seed}`,
          seed,
          tier,
          project,
          mutations: chosen,
          files: mutant,
          expected: original.names,
          failing: combined.failing,
          gold
        })
      }
      return E.left(`no verified task found for seed ${seed}, tier ${tier}`)
    }

  return { generate, verify, stats: () => ({ runs, hits }) }
}
