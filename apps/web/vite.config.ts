import { builtinModules } from 'node:module'
import { fileURLToPath } from 'node:url'
import { defineConfig, type Plugin } from 'vite'

const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url))

/** Node's modules the page provides (an in-memory file system, paths, the few answers of os and url). */
const provided: Readonly<Record<string, string>> = {
  fs: here('./src/shims/fs.ts'),
  'fs/promises': here('./src/shims/fsPromises.ts'),
  path: 'pathe',
  os: here('./src/shims/os.ts'),
  url: here('./src/shims/url.ts'),
  module: here('./src/shims/module.ts'),
  util: here('./src/shims/util.ts'),
  crypto: here('./src/shims/crypto.ts'),
  buffer: 'buffer/',
  events: 'events/',
  process: here('./src/shims/process.ts')
}

const builtin = new Set(builtinModules)

/**
 * Node's modules in the browser. Each resolves to a module whose named exports are those of the
 * page's implementation above (when it has one) and, for any other name, a function that throws
 * when called: the libraries import servers, sandboxes and threads for features the page does not
 * use, and a call says which one was reached.
 */
const nodeModules = (): Plugin => ({
  name: 'mtrl-node-modules',
  enforce: 'pre',
  resolveId(id) {
    const name = id.startsWith('node:') ? id.slice(5) : id
    return builtin.has(name) || id.startsWith('node:') ? `\0node:${name}` : null
  },
  load(id) {
    if (!id.startsWith('\0node:')) return null
    const name = id.slice('\0node:'.length)
    const implementation = provided[name]
    return {
      code: [
        implementation === undefined ? 'const real = {}' : `import * as real from ${JSON.stringify(implementation)}`,
        `const message = (key) => 'node:${name} (' + String(key) + ') is not available in the browser'`,
        // called: throws; constructed (a module that makes a server agent when it loads): an object whose members throw
        'const unavailable = (key) => function () { if (new.target) return new Proxy({}, { get: (_, member) => unavailable(String(key) + "." + String(member)) }); throw new Error(message(key)) }',
        'const base = real.default !== undefined && typeof real.default === "object" ? { ...real.default, ...real } : { ...real }',
        'export const __node = new Proxy(base, { get: (target, key) => (key in target ? target[key] : key in globalThis ? globalThis[key] : key === "__esModule" ? false : unavailable(key)) })',
        'export default real.default !== undefined && typeof real.default === "object" ? real.default : __node'
      ].join('\n'),
      syntheticNamedExports: '__node'
    }
  }
})

export default defineConfig({
  plugins: [nodeModules()],
  resolve: { conditions: ['@mtrl/source', 'browser', 'module', 'import', 'default'] },
  worker: { format: 'es', plugins: () => [nodeModules()] },
  build: {
    // CommonJS packages (memfs) require Node's modules: they get the module object itself
    commonjsOptions: { requireReturnsDefault: (id: string) => (id.startsWith('\0node:') ? 'preferred' : false) },
    target: 'es2022',
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 4000
  },
  server: { headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } },
  preview: { headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } }
})
