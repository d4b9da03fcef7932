import { defineConfig } from 'tsup'

export default defineConfig({
  // replica-backend: the module SFT's replica threads import to activate the run's backend.
  entry: { main: 'src/main.ts', 'replica-backend': 'src/ReplicaBackend.ts' },
  format: ['esm'],
  dts: false,
  clean: true,
  sourcemap: true,
  target: 'node20',
  tsconfig: 'tsconfig.build.json'
})
