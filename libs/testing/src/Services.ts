/**
 * Services a test needs from the machine (a `redis-server` binary, a Chromium), and a tag for
 * its title: a test that cannot run here is skipped, not failed, and `npm test` lists it with
 * the reason (`[needs redis-server]`); `.ci/run`, which installs every service, fails on any
 * such skip.
 *
 * @example
 * import { Services } from '@mtrl/testing'
 * it.runIf(Services.available('redis-server'))(`plays jobs ${Services.tag('redis-server')}`, async () => {})
 *
 * @since 0.5.0
 */
import { Backend, WebGpu } from '@mtrl/backend'
import { spawnSync } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { delimiter, isAbsolute, join } from 'node:path'

/**
 * `webgpu`: a WebGPU adapter Dawn can use in Node (a GPU's Vulkan driver, or SwiftShader's from
 * Debian's chromium; Debian 12's lavapipe is too old for Dawn). `tensorflow`: the native backend's
 * binding (`@tensorflow/tfjs-node`), which `npm ci` builds where the machine allows.
 * `python-openai`: a `python3` that imports the `openai` package (tests of agents written in Python).
 * `python-transformers`: a `python3` that imports `transformers` and `torch` (references for the
 * Hugging Face families and exported models).
 *
 * @category models
 * @since 0.5.0
 */
export type Service = 'redis-server' | 'chromium' | 'webgpu' | 'tensorflow' | 'python-openai' | 'python-transformers'

const executables: Readonly<Record<Exclude<Service, 'webgpu' | 'tensorflow' | 'python-openai' | 'python-transformers'>, ReadonlyArray<string>>> = {
  'redis-server': ['redis-server'],
  chromium: ['/usr/bin/chromium', 'chromium']
}

const imports = new Map<string, boolean>()
/** python3 is asked once per process whether it imports `modules`. */
const pythonImports = (modules: string): boolean => {
  const known = imports.get(modules)
  if (known !== undefined) return known
  const ok = spawnSync('python3', ['-c', `import ${modules}`], { stdio: 'ignore' }).status === 0
  imports.set(modules, ok)
  return ok
}

let webGpu: boolean | undefined
/** Dawn is asked once per process (a thread starts and asks for an adapter: about half a second). */
const hasWebGpu = (): boolean => (webGpu ??= typeof WebGpu.probe() !== 'string')

const runnable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

const onPath = (name: string): boolean =>
  isAbsolute(name) ? runnable(name) : (process.env['PATH'] ?? '').split(delimiter).some((dir) => dir !== '' && runnable(join(dir, name)))

/**
 * Whether the machine has the service (its executable on PATH; for `webgpu`, an adapter; for
 * `tensorflow`, a built binding: probing loads it and leaves the active backend as it was; for
 * `python-openai` and `python-transformers`, `python3` imports the packages).
 *
 * @category checks
 * @since 0.5.0
 */
export const available = (service: Service): boolean =>
  service === 'webgpu'
    ? hasWebGpu()
    : service === 'tensorflow'
      ? Backend.availability()['@tensorflow/tfjs-node'].installed
      : service === 'python-openai'
        ? pythonImports('openai')
        : service === 'python-transformers'
          ? pythonImports('transformers, torch')
          : executables[service].some(onPath)

/**
 * The title tag of a test that needs `service`: `[needs redis-server]`. `tools/test.mjs` counts
 * skipped tests by it.
 *
 * @category constructors
 * @since 0.5.0
 */
export const tag = (service: Service): string => `[needs ${service}]`
