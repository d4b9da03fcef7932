#!/usr/bin/env node
// Repairs tsup's bundled declarations (rollup-plugin-dts): inside `export * as Ns from './X.js'`
// namespaces, a name that is both a value and a type (an io-ts codec and its type, the house
// style) is re-exported as a type only, so `Rng.RngState.decode(...)` fails to type-check in
// consumers. For each such alias `type Ns_X = X;` whose `X` is also a declared const, this adds
// `declare const Ns_X: typeof X;` and drops the `type` modifier from its export.
// Usage: node tools/fix-dts.mjs DIST_DIR
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const dir = process.argv[2] ?? 'dist'
const escape = (s) => s.replace(/[$]/g, '\\$')
let fixed = 0
for (const file of readdirSync(dir).filter((f) => f.endsWith('.d.ts') || f.endsWith('.d.cts'))) {
  const path = join(dir, file)
  let text = readFileSync(path, 'utf8')
  const values = new Set([...text.matchAll(/^declare const ([\w$]+)\b/gm)].map((m) => m[1]))
  const aliases = [...text.matchAll(/^type ([\w$]+) = ([\w$]+);$/gm)].filter(([, alias, target]) => values.has(target) && !values.has(alias))
  for (const [line, alias, target] of aliases) {
    text = text.replace(line, `${line}\ndeclare const ${alias}: typeof ${target};`)
    text = text.replace(new RegExp(`\\btype ${escape(alias)} as `, 'g'), `${alias} as `)
    fixed++
  }
  writeFileSync(path, text)
}
process.stdout.write(`fix-dts: ${fixed} value+type re-exports repaired in ${dir}\n`)
