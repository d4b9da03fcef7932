#!/usr/bin/env node
// `npm test`: every project's vitest suite, typecheck and lint (through Nx, two at a time),
// then the package check (build, publint, pack, install elsewhere, import + require), then the
// formatter's check of the layout.
// Ends with one line `N passed, N failed, N skipped`; exits non-zero when anything failed.
// Skipped tests (`it.skip`, `it.runIf(false)`, todo) are counted, so a check that a machine
// cannot run (an isolation guard it lacks) shows up instead of vanishing.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'

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

const projectsWith = (target) => {
  const out = spawnSync(process.execPath, [nx, 'show', 'projects', '--with-target', target, '--json'], { cwd: root, env, encoding: 'utf8' })
  return JSON.parse(out.stdout || '[]').filter((name) => !name.startsWith('lint-fixture'))
}

const runTargets = (targets, projects) => {
  const args = [
    nx,
    'run-many',
    '-t',
    ...targets,
    `--projects=${projects.join(',')}`,
    '--parallel=2',
    '--skip-nx-cache',
    '--output-style=static',
    '--nx-bail=false'
  ]
  const out = spawnSync(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 256 << 20 })
  const text = `${out.stdout}${out.stderr}`
  process.stdout.write(text)
  const failedSection = text.split(/Failed tasks:/)[1] ?? ''
  return new Set([...failedSection.matchAll(/^\s*- (\S+)$/gm)].map((m) => m[1]))
}

// 1. Test suites.
const testProjects = projectsWith('test')
const failedTests = runTargets(['test'], testProjects)
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
  if (json.numFailedTests === 0 && failedTests.has(`${project}:test`)) {
    failed += 1
    failures.push(`${project}: test run failed (suite error)`)
  }
}

// 2. Typecheck and lint, one check per project and target.
const checkProjects = [...new Set([...projectsWith('typecheck'), ...projectsWith('lint')])]
const failedChecks = runTargets(['typecheck', 'lint'], checkProjects)
for (const target of ['typecheck', 'lint'])
  for (const project of projectsWith(target)) {
    if (failedChecks.has(`${project}:${target}`)) {
      failed += 1
      failures.push(`${project}:${target}`)
    } else passed += 1
  }

// 3. Packages installable on their own.
spawnSync(process.execPath, [join(root, 'tools/pack-check.mjs')], { cwd: root, env, stdio: 'inherit' })
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
const format = spawnSync(process.execPath, [join(root, 'node_modules/prettier/bin/prettier.cjs'), '--check', '.'], { cwd: root, env, encoding: 'utf8' })
if (format.status === 0) passed += 1
else {
  failed += 1
  const files = `${format.stdout}${format.stderr}`.split('\n').filter((l) => l.startsWith('[warn] ') && !l.includes('Code style issues'))
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
