/**
 * xgrammar (the grammar engine of vLLM, SGLang and TensorRT-LLM) compiled to WebAssembly, from
 * `@mlc-ai/web-xgrammar`. Its bundle is a UMD script published as an ES module (`"type":
 * "module"` over a file that calls `require`), which Node refuses to load either way; it is
 * therefore run here as the CommonJS script it is, once, with its own `require` (and Node's
 * loader for the one module it imports dynamically).
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import * as vm from 'node:vm'
import type * as Xg from '@mlc-ai/web-xgrammar'

export type Xgrammar = typeof Xg

const requireHere = createRequire(import.meta.url)
let loaded: Xgrammar | undefined

/** The xgrammar module (loaded on first use). */
export const load = (): Xgrammar => {
  if (loaded !== undefined) return loaded
  const file = requireHere.resolve('@mlc-ai/web-xgrammar')
  const module = { exports: {} as Record<string, unknown> }
  // the script imports `module` dynamically when it runs under Node: give it the main loader
  const run = vm.runInThisContext(`(function (exports, module, require, __filename, __dirname) {${readFileSync(file, 'utf8')}\n})`, {
    filename: file,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER
  }) as (...args: unknown[]) => void
  run(module.exports, module, createRequire(file), file, dirname(file))
  loaded = module.exports as unknown as Xgrammar
  return loaded
}
