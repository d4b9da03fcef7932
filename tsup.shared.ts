/**
 * The one tsup configuration of the workspace: every package builds ESM + CJS with declarations
 * and source maps for Node 20 from `src/index.ts`, through its `tsconfig.build.json`. A package's
 * `tsup.config.ts` names only what differs (more entries, `shims` for `import.meta.url` in CJS).
 */
import { defineConfig, type Options } from 'tsup'

export const packageConfig = (overrides: Options = {}) =>
  defineConfig({
    entry: ['src/index.ts'],
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    sourcemap: true,
    target: 'node20',
    tsconfig: 'tsconfig.build.json',
    ...overrides
  })
