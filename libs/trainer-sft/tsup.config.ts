import { defineConfig } from 'tsup'

export default defineConfig({
  // The replica worker is its own entry: Replicas starts it as a worker thread from dist/.
  entry: { index: 'src/index.ts', 'replica-worker': 'src/internal/replicaWorker.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  shims: true,
  tsconfig: 'tsconfig.build.json'
})
