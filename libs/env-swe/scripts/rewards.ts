/**
 * The rewards of the whole corpus, test by test, as JSON on stdout: every original project
 * (`fixed <project>`, must pay 1) and the unfixed code of the tasks of 3 tiers x `SEEDS` seeds
 * (`<tier> <seed>`: the task id, its reward, the tests failing, the generator's own failing list,
 * and the reward of the original code on the same tests). Run before and after a change of the
 * sandbox and compare the two files: a task whose reward moved is a behaviour change.
 *
 * The ES-module projects (issue 55; outside the default corpus) come as extra rows: `fixed
 * <project>`, and `module <tier> <seed>` for `MODULE_SEEDS` seeds, so the default corpus's rows
 * stay comparable with runs from before them.
 *
 * Run: npm run rewards -w @mtrl/env-swe > rewards.json (SEEDS=30, MODULE_SEEDS=5 and MEMORY_MB=512 by default)
 */
import * as E from 'fp-ts/lib/Either.js'
import * as Corpus from '../src/Corpus.js'
import * as Sandbox from '../src/Sandbox.js'
import * as Suite from '../src/Suite.js'
import * as Swe from '../src/Swe.js'
import * as Workspace from '../src/Workspace.js'

const seeds = Number(process.env['SEEDS'] ?? 30)
const limits = { ...Sandbox.defaultLimits, memoryMb: Number(process.env['MEMORY_MB'] ?? Sandbox.defaultLimits.memoryMb) }
const moduleSeeds = Number(process.env['MODULE_SEEDS'] ?? 5)
const shared = Swe.resources({ memoryMb: limits.memoryMb }, 2)
const modular = Swe.resources({ memoryMb: limits.memoryMb, projects: Corpus.modules.map((p) => p.name) }, 2)

const runFiles = async (project: Corpus.Project, files: Readonly<Record<string, string>>): Promise<Suite.SuiteResult> => {
  const ws = Workspace.make(files)
  try {
    const r = await shared.pool.run(Suite.run({ limits, guards: shared.guards })(ws, Corpus.testSources(project)))()
    if (E.isLeft(r)) throw new Error(Sandbox.errorMessage(r.left))
    return r.right
  } finally {
    ws.dispose()
  }
}

const fixed = async (p: Corpus.Project): Promise<readonly [string, unknown]> => {
  const r = await runFiles(p, p.files)
  const s = Suite.score(r.outcomes.map(Suite.qualified), r.outcomes)
  return [`fixed ${p.name}`, { reward: s.total === 0 ? 0 : s.passed / s.total, total: s.total }]
}

const unfixed = async (tier: 'easy' | 'medium' | 'hard', seed: number, from: Swe.Resources = shared, prefix = ''): Promise<readonly [string, unknown]> => {
  const t = await from.generator.generate(seed, tier)()
  if (E.isLeft(t)) return [`${prefix}${tier} ${seed}`, { error: t.left }]
  const task = t.right
  const s = Suite.score(task.expected, (await runFiles(task.project, task.files)).outcomes)
  const g = Suite.score(task.expected, (await runFiles(task.project, task.project.files)).outcomes)
  return [`${prefix}${tier} ${seed}`, { id: task.id, unfixed: s.passed / s.total, failing: s.failing, taskFailing: task.failing, fixed: g.passed / g.total }]
}

const main = async (): Promise<void> => {
  const tiers = ['easy', 'medium', 'hard'] as const
  const jobs = tiers.flatMap((tier) => Array.from({ length: seeds }, (_, seed) => unfixed(tier, seed)))
  const moduleJobs = tiers.flatMap((tier) => Array.from({ length: moduleSeeds }, (_, seed) => unfixed(tier, seed, modular, 'module ')))
  const rows = await Promise.all([...Corpus.all.map(fixed), ...jobs, ...moduleJobs])
  shared.dispose()
  modular.dispose()
  console.log(JSON.stringify(Object.fromEntries([...rows].sort(([a], [b]) => a.localeCompare(b))), null, 1))
}

void main()
