#!/usr/bin/env node
// Checks that every publishable package works on its own: builds it, runs publint on it, packs
// it, installs the tarballs into an empty project outside the workspace (with the peer
// dependencies), then loads each package with both `import` and `require` and checks that the
// two expose the same names. Writes tmp/test-results/pack-check.json for tools/test.mjs.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const root = resolve(import.meta.dirname, '..')
const results = []
const record = (name, ok, detail = '') => {
  results.push({ name, ok, detail })
  process.stdout.write(`${ok ? '✓' : '✗'} ${name}${ok ? '' : `\n    ${detail.split('\n').join('\n    ')}`}\n`)
}
const run = (cmd, args, options = {}) =>
  execFileSync(cmd, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20, ...options })

const packages = readdirSync(join(root, 'libs'))
  .map((dir) => ({ dir: join(root, 'libs', dir), manifest: join(root, 'libs', dir, 'package.json') }))
  .filter(({ manifest }) => existsSync(manifest))
  .map(({ dir, manifest }) => ({ dir, pkg: JSON.parse(readFileSync(manifest, 'utf8')) }))
  .filter(({ pkg }) => pkg.private !== true)

const outDir = join(root, 'tmp', 'test-results')
mkdirSync(outDir, { recursive: true })
const finish = () => {
  const passed = results.filter((r) => r.ok).length
  writeFileSync(join(outDir, 'pack-check.json'), JSON.stringify({ passed, failed: results.length - passed, results }, null, 2))
}

try {
  run(
    process.execPath,
    [
      join(root, 'node_modules/nx/dist/bin/nx.js'),
      'run-many',
      '-t',
      'build',
      '--output-style=static',
      `--projects=${packages.map(({ dir }) => dir.split('/').pop()).join(',')}`
    ],
    {
      env: { ...process.env, NX_DAEMON: 'false' }
    }
  )
} catch (e) {
  record('build all packages', false, `${e.stdout ?? ''}${e.stderr ?? ''}`.slice(-4000))
  finish()
  process.exit(1)
}

const packDir = join(root, 'tmp', 'pack')
rmSync(packDir, { recursive: true, force: true })
mkdirSync(packDir, { recursive: true })
const tarballs = []
for (const { dir, pkg } of packages) {
  try {
    const out = run(join(root, 'node_modules/.bin/publint'), ['run', '--strict', dir])
    record(`${pkg.name}: publint`, true, out)
  } catch (e) {
    record(`${pkg.name}: publint`, false, `${e.stdout ?? ''}${e.stderr ?? ''}`)
  }
  const file = run('npm', ['pack', '--silent', '--pack-destination', packDir], { cwd: dir }).trim().split('\n').pop()
  tarballs.push(join(packDir, file))
}

const project = mkdtempSync(join(tmpdir(), 'mtrl-pack-'))
try {
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }))
  const peers = new Set()
  for (const { pkg } of packages) for (const [name, range] of Object.entries(pkg.peerDependencies ?? {})) if (name !== 'vitest') peers.add(`${name}@${range}`)
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', ...tarballs, ...peers], { cwd: project })
  for (const { pkg } of packages) {
    try {
      const cjs = run(process.execPath, ['-e', `console.log(JSON.stringify(Object.keys(require(${JSON.stringify(pkg.name)})).sort()))`], {
        cwd: project
      }).trim()
      const esm = run(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const m = await import(${JSON.stringify(pkg.name)}); console.log(JSON.stringify(Object.keys(m).filter((k) => k !== 'default').sort()))`
        ],
        { cwd: project }
      ).trim()
      const names = JSON.parse(esm)
      record(`${pkg.name}: require`, JSON.parse(cjs).length > 0, cjs)
      record(`${pkg.name}: import`, names.length > 0 && esm === cjs, `import: ${esm}\nrequire: ${cjs}`)
    } catch (e) {
      record(`${pkg.name}: load`, false, `${e.stdout ?? ''}${e.stderr ?? ''}`.slice(-4000))
    }
  }
  // The data-parallel replicas (SFT's and the RL update's) start worker threads from the installed dist/ files.
  const replicaCheck = (load) => `${load}
const policy = Policy.make(ModelConfig.make({ vocab: 8, dModel: 8, layers: 1, heads: 2, maxLen: 8 }), 0)
const pool = await Replicas.start(policy, 1)
const shard = { rows: 1, time: 4, ids: Int32Array.from([1, 2, 3, 4]), masks: [Float32Array.from([0, 1, 1, 1])] }
const [answer] = Pool.dispatch(pool.workers, 'policy', Task.flatten(pool.variables), [{ shard, coefs: [1 / 3] }])()
await pool.dispose()
const rl = await UpdateReplicas.start(policy, Critic.make(policy, { shareTrunk: false }, 1), 1)
const sizes = rl.workers.sizes
await rl.dispose()
console.log(answer.grads.length === Task.flatten(pool.variables).length && answer.grads.some((x) => x !== 0) && sizes.critic > 0 ? 'ok' : 'no gradient')`
  for (const [kind, load] of [
    [
      'import',
      "const { Critic, ModelConfig, Policy } = await import('@mtrl/policy'); const { Replicas } = await import('@mtrl/trainer-sft'); const { UpdateReplicas } = await import('@mtrl/trainer-rl'); const { Pool, Task } = await import('@mtrl/replicas')"
    ],
    [
      'require',
      "const { Critic, ModelConfig, Policy } = require('@mtrl/policy'); const { Replicas } = require('@mtrl/trainer-sft'); const { UpdateReplicas } = require('@mtrl/trainer-rl'); const { Pool, Task } = require('@mtrl/replicas')"
    ]
  ]) {
    try {
      const args = kind === 'import' ? ['--input-type=module', '-e', replicaCheck(load)] : ['-e', `(async () => { ${replicaCheck(load)} })()`]
      const out = run(process.execPath, args, { cwd: project }).trim()
      record(`@mtrl/trainer-sft, @mtrl/trainer-rl: replica workers start from dist (${kind})`, out === 'ok', out)
    } catch (e) {
      record(`@mtrl/trainer-sft, @mtrl/trainer-rl: replica workers start from dist (${kind})`, false, `${e.stdout ?? ''}${e.stderr ?? ''}`.slice(-4000))
    }
  }
} catch (e) {
  record('install the packed packages into an empty project', false, `${e.stdout ?? ''}${e.stderr ?? ''}`.slice(-4000))
} finally {
  rmSync(project, { recursive: true, force: true })
}
finish()
process.exit(results.every((r) => r.ok) ? 0 : 1)
