#!/usr/bin/env node
// `tools/gpu-check.sh pack`: what the GPU machine needs and lacks (it has no Node and no network),
// in one archive under tmp/gpu-check/ (carried with the working tree, 64 MiB at most): this
// machine's node binary and the node_modules that the parity tests and the benches load (the
// closure of the workspace packages' runtime dependencies, vitest and tsx, without the native
// tensorflow bindings and build tools), with source maps, type declarations, minified browser
// bundles and other platforms' Dawn builds left out. The workspace's @mtrl/* links are kept, and
// the packages installed beside a workspace package.
import { spawnSync } from 'node:child_process'
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'

const root = resolve(import.meta.dirname, '..', '..')
const out = join(root, 'tmp', 'gpu-check')
const skip = new Set(['@tensorflow/tfjs-node', '@tensorflow/tfjs-node-gpu', 'nx', 'typescript', 'eslint', 'prettier', 'tsup', 'playwright', 'playwright-core'])
const seen = new Set()
const visit = (name) => {
  if (seen.has(name) || skip.has(name) || name.startsWith('@mtrl/') || name === 'mtrl') return
  if (!existsSync(join(root, 'node_modules', name, 'package.json'))) return
  seen.add(name)
  const p = JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8'))
  for (const d of Object.keys({ ...p.dependencies, ...p.optionalDependencies, ...p.peerDependencies })) visit(d)
}
const workspaces = ['apps/mtrl', ...readdirSync(join(root, 'libs')).map((l) => `libs/${l}`)]
for (const w of workspaces) {
  const p = JSON.parse(readFileSync(join(root, w, 'package.json'), 'utf8'))
  for (const d of Object.keys({ ...p.dependencies, ...p.optionalDependencies, ...p.peerDependencies, ...p.devDependencies })) visit(d)
}
for (const d of ['vitest', 'tsx']) visit(d)
// packages installed beside a workspace package resolve their own dependencies from the root
const nested = (w) =>
  existsSync(join(root, w, 'node_modules'))
    ? readdirSync(join(root, w, 'node_modules')).flatMap((n) =>
        n.startsWith('@') ? readdirSync(join(root, w, 'node_modules', n)).map((m) => `${n}/${m}`) : [n]
      )
    : []
for (const w of workspaces)
  for (const name of nested(w)) {
    const manifest = join(root, w, 'node_modules', name, 'package.json')
    if (!existsSync(manifest)) continue
    const p = JSON.parse(readFileSync(manifest, 'utf8'))
    for (const d of Object.keys({ ...p.dependencies, ...p.optionalDependencies, ...p.peerDependencies })) visit(d)
  }

const dropped = /\.(map|html|md|d\.ts|d\.mts|d\.cts|tsbuildinfo)$|\.min\.js$|es2017|fesm|miniprogram|\/dist\/(darwin|win32|linux-arm64)/
const files = []
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    const rel = relative(root, path)
    if (dropped.test(rel)) continue
    if (lstatSync(path).isDirectory()) walk(path)
    else files.push(rel)
  }
}
for (const name of seen) walk(join(root, 'node_modules', name))
// packages installed beside one workspace package (a version other than the root's: serving's ajv)
for (const w of workspaces) if (existsSync(join(root, w, 'node_modules'))) walk(join(root, w, 'node_modules'))
// the workspace links (node_modules/@mtrl/* -> libs/*) and the .bin entries the script calls
for (const name of readdirSync(join(root, 'node_modules', '@mtrl'))) files.push(`node_modules/@mtrl/${name}`)
files.push('node_modules/mtrl')
rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
const list = join(out, 'files.txt')
writeFileSync(list, files.join('\n'))
const node = process.execPath
const tar = spawnSync('tar', ['-cJf', join(out, 'pack.tar.xz'), '-C', root, '-T', list, '--transform', 's,^,,', '-C', node.replace(/\/node$/, ''), 'node'], {
  stdio: 'inherit',
  env: { ...process.env, XZ_OPT: '-6 -T2' }
})
if (tar.status !== 0) process.exit(1)
rmSync(list)
const mib = statSync(join(out, 'pack.tar.xz')).size / 2 ** 20
console.log(`tmp/gpu-check/pack.tar.xz: ${mib.toFixed(1)} MiB (node ${process.version}, ${seen.size} packages, ${files.length} files)`)
if (mib > 60) {
  console.error('over the 64 MiB that travels with the working tree')
  process.exit(1)
}
