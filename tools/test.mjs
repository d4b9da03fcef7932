#!/usr/bin/env node
// `npm test`: every project's vitest suite, typecheck and lint (the projects and their targets as
// Nx sees them), the package check (build, publint, pack, install elsewhere, import + require) and
// the formatter's check of the layout, in one queue run two at a time, the slowest suites first
// (and the suites that mostly wait on a third lane);
// the typechecks and lints that share options run as one program / one ESLint run (check-groups.mjs).
// Ends with one line `N passed, N failed, N skipped`; exits non-zero when anything failed.
// Skipped tests (`it.skip`, `it.runIf(false)`, todo) are counted, so a check that a machine
// cannot run (an isolation guard it lacks) shows up instead of vanishing.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { errorFiles, failedProjects, groups } from './check-groups.mjs'

const root = resolve(import.meta.dirname, '..')
const results = join(root, 'tmp', 'test-results')
const nx = join(root, 'node_modules/nx/dist/bin/nx.js')
const env = { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', FORCE_COLOR: '0' }
rmSync(results, { recursive: true, force: true })
mkdirSync(results, { recursive: true })

let passed = 0
let failed = 0
let skipped = 0
const failures = []
const skippedBy = []
// Skipped tests that need a service the machine lacks carry `[needs NAME]` in their titles
// (@mtrl/testing Services); counted per service, so the summary says what to install.
const needs = new Map()
const install = {
  'redis-server': 'Debian: apt-get install redis-server',
  chromium: 'Debian: apt-get install chromium',
  tensorflow: 'npm run setup:tensorflow (builds @tensorflow/tfjs-node from the local pip index; npm ci does it where it can)',
  'python-openai': "pip install openai (the machine's local pip index)",
  'python-transformers': "pip install torch==2.13.0+cpu transformers==5.18.0 (the machine's local pip index and /opt/wheels)",
  webgpu: 'a GPU with a Vulkan driver, or Debian: apt-get install chromium libvulkan1 (SwiftShader Vulkan; see libs/backend/README.md)',
  'SWE sandbox guards': 'run as root with util-linux, mount and coreutils; npm run probe -w @mtrl/env-swe says which are missing'
}

// The projects and their targets, from one Nx project graph.
const graphFile = join(results, 'graph.json')
const graph = spawnSync(process.execPath, [nx, 'graph', `--file=${graphFile}`], { cwd: root, env, encoding: 'utf8' })
if (!existsSync(graphFile)) {
  process.stderr.write(`nx graph wrote no project graph:\n${graph.stdout}${graph.stderr}`)
  process.exit(1)
}
const nodes = JSON.parse(readFileSync(graphFile, 'utf8')).graph.nodes
const projectsWith = (target) =>
  Object.keys(nodes)
    .filter((name) => !name.startsWith('lint-fixture') && nodes[name].data.targets?.[target] !== undefined)
    .sort()

// The suites that take longest on 2 cores (the CI run's vitest durations, slowest first): they
// start first and the short tasks fill the end in, so both cores stay busy to the last task.
// (Nx's own order, the most depended-on project first, started the apps' suites last, and a core
// then idled while the last of them ran.) A project not listed starts after these.
const slowest = ['recipe', 'mtrl', 'env-swe', 'trainer-rl', 'web', 'rollout-queue', 'policy', 'serving', 'agent-rl', 'tools', 'trainer-sft']
const rank = (project) => (slowest.includes(project) ? slowest.indexOf(project) : slowest.length)
// Suites that mostly wait (on sandboxed processes and their timers: env-swe's 97 s on an idle
// 2-core machine were 63 s of CPU) run beside the two lanes, on a third of their own, from the
// start: a core they would leave idle while waiting does another task's work meanwhile.
const waiting = ['env-swe']

/**
 * Runs a task, its output whole once it ends: a project's target as Nx's run-script executor runs
 * it (`npm run TARGET` in the project's folder), or a `command` (node script) with `args` in the
 * workspace (a grouped check, the package check, the formatter's check).
 */
const runTask = (task) =>
  new Promise((done) => {
    const started = Date.now()
    const label = task.label ?? `${task.project}:${task.target}`
    const child =
      task.command === undefined
        ? spawn('npm', ['run', nodes[task.project].data.targets[task.target].options?.script ?? task.target], {
            cwd: join(root, nodes[task.project].data.root),
            env,
            stdio: ['ignore', 'pipe', 'pipe']
          })
        : spawn(process.execPath, [task.command, ...task.args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] })
    const chunks = []
    child.stdout.on('data', (d) => chunks.push(d))
    child.stderr.on('data', (d) => chunks.push(d))
    child.on('close', (code) => {
      const seconds = (Date.now() - started) / 1000
      const output = Buffer.concat(chunks).toString('utf8')
      process.stdout.write(`\n> ${label}\n\n${output}\n${label} ${code === 0 ? 'done' : `failed (exit ${code})`} in ${seconds.toFixed(1)} s\n`)
      done({ ...task, label, ok: code === 0, seconds, output })
    })
  })

/**
 * Runs `tasks` two at a time, in order, and the test suites of the `waiting` projects on a lane
 * of their own beside them; what each gave (`ok`, `seconds`, `output`), by label.
 */
const runTasks = async (tasks) => {
  const waits = (task) => task.target === 'test' && waiting.includes(task.project)
  const queue = tasks.filter((task) => !waits(task))
  const aside = tasks.filter(waits)
  const ran = []
  const lane = async (from) => {
    for (let task = from.shift(); task !== undefined; task = from.shift()) ran.push(await runTask(task))
  }
  await Promise.all([lane(queue), lane(queue), lane(aside)])
  writeFileSync(
    join(results, 'timings.json'),
    `${JSON.stringify(
      ran.map(({ label, project, target, ok, seconds }) => ({ task: label, project, target, ok, seconds })),
      null,
      2
    )}\n`
  )
  return new Map(ran.map((r) => [r.label, r]))
}

// 1. Every task in one queue: the test suites (slowest first), the package check, the typecheck
// and lint of the projects that share one program or one ESLint run (tools/check-groups.mjs),
// the projects' own checks, the short suites, then the formatter's check. The package check
// builds every package's dist/, which no test reads (they resolve @mtrl/* to sources).
const testProjects = projectsWith('test')
/** A project's npm script for each target (the script Nx's run-script executor runs). */
const scriptsOf = (name) => {
  const scripts = JSON.parse(readFileSync(join(root, nodes[name].data.root, 'package.json'), 'utf8')).scripts ?? {}
  return Object.fromEntries(Object.entries(nodes[name].data.targets).map(([target, config]) => [target, scripts[config.options?.script ?? target]]))
}
const checkProjects = [...new Set([...projectsWith('typecheck'), ...projectsWith('lint')])].map((name) => ({
  name,
  root: nodes[name].data.root,
  scripts: scriptsOf(name)
}))
const { tasks: groupTasks, alone } = groups(root, checkProjects, join(results, 'tsconfig.typecheck.json'))
const grouped = groupTasks.map((task) => ({ ...task, label: `${task.group} (${task.projects.length} projects)` }))
const ownChecks = ['typecheck', 'lint'].flatMap((target) =>
  projectsWith(target)
    .filter((project) => alone(project, target))
    .map((project) => ({ project, target }))
)
const testTasks = testProjects.map((project) => ({ project, target: 'test' })).sort((a, b) => rank(a.project) - rank(b.project))
const packTask = { label: 'pack-check', command: join(root, 'tools/pack-check.mjs'), args: [] }
const formatTask = { label: 'format', command: join(root, 'node_modules/prettier/bin/prettier.cjs'), args: ['--check', '.'] }
const longTests = testTasks.filter((t) => slowest.includes(t.project))
const shortTests = testTasks.filter((t) => !slowest.includes(t.project))
const ran = await runTasks([...longTests, packTask, ...grouped, ...ownChecks, ...shortTests, formatTask])
const failedTask = (label) => ran.get(label)?.ok !== true
for (const project of testProjects) {
  const report = join(results, `${project}.json`)
  if (!existsSync(report)) {
    // No report: the suite crashed before it could write one.
    failed += 1
    failures.push(`${project}: test suite crashed (no report)`)
    continue
  }
  const json = JSON.parse(readFileSync(report, 'utf8'))
  passed += json.numPassedTests
  failed += json.numFailedTests
  const skips = (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0)
  skipped += skips
  if (skips > 0) skippedBy.push(`${project}: ${skips} skipped`)
  for (const file of json.testResults ?? [])
    for (const test of file.assertionResults ?? [])
      if (test.status === 'pending' || test.status === 'skipped' || test.status === 'todo') {
        const service = /\[needs ([^\]]+)\]/.exec([...(test.ancestorTitles ?? []), test.title].join(' '))?.[1]
        if (service !== undefined) needs.set(service, (needs.get(service) ?? 0) + 1)
      }
  if (json.numFailedTests > 0) failures.push(`${project}: ${json.numFailedTests} failed test(s)`)
  if (json.numFailedTests === 0 && failedTask(`${project}:test`)) {
    failed += 1
    failures.push(`${project}: test run failed (suite error)`)
  }
}

// 2. Typecheck and lint: a check per project and target (a grouped check's failure goes to the
// projects whose files it names).
const failedChecks = new Set(ownChecks.filter((t) => failedTask(`${t.project}:${t.target}`)).map((t) => `${t.project}:${t.target}`))
for (const task of grouped) {
  const result = ran.get(task.label)
  const roots = Object.fromEntries(task.projects.map((name) => [name, nodes[name].data.root]))
  for (const name of failedProjects(roots, errorFiles(root, result?.output ?? ''), result?.ok === true)) failedChecks.add(`${name}:${task.target}`)
}
for (const target of ['typecheck', 'lint'])
  for (const project of projectsWith(target)) {
    if (failedChecks.has(`${project}:${target}`)) {
      failed += 1
      failures.push(`${project}:${target}`)
    } else passed += 1
  }

// 3. Packages installable on their own.
const pack = join(results, 'pack-check.json')
if (existsSync(pack)) {
  const json = JSON.parse(readFileSync(pack, 'utf8'))
  passed += json.passed
  failed += json.failed
  for (const r of json.results) if (!r.ok) failures.push(`pack-check: ${r.name}`)
} else {
  failed += 1
  failures.push('pack-check: no report')
}

// 4. Layout: the formatter's (one config at the root, .prettierrc.json); `npm run format` fixes it.
if (!failedTask(formatTask.label)) passed += 1
else {
  failed += 1
  const files = (ran.get(formatTask.label)?.output ?? '').split('\n').filter((l) => l.startsWith('[warn] ') && !l.includes('Code style issues'))
  failures.push(
    `format: ${files.length} file(s) not in the formatter's layout (npm run format): ${files
      .slice(0, 5)
      .map((l) => l.slice(7))
      .join(', ')}`
  )
}

if (skippedBy.length > 0) process.stdout.write(`\nSkipped:\n${skippedBy.map((f) => `  - ${f}`).join('\n')}\n`)
for (const [service, count] of needs)
  process.stdout.write(
    `  - ${count} test${count === 1 ? '' : 's'} need${count === 1 ? 's' : ''} ${service}, which is not on this machine (${install[service] ?? 'install it'}; .ci/run sets it up)\n`
  )
// CI installs every service: there, a test skipped for want of one is a failure.
if (process.env.MTRL_REQUIRE_SERVICES === '1')
  for (const [service, count] of needs) {
    failed += 1
    failures.push(`${count} test(s) skipped under CI for want of ${service}`)
  }
if (failures.length > 0) process.stdout.write(`\nFailures:\n${failures.map((f) => `  - ${f}`).join('\n')}\n`)
process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`)
process.exit(failed === 0 ? 0 : 1)
