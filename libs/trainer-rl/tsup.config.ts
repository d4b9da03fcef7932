import { packageConfig } from '../../tsup.shared.js'

// The replicas' task is its own entry: each worker thread imports it from dist/. `settings`:
// the tensor-free entry point (@mtrl/trainer-rl/settings).
export default packageConfig({ entry: { index: 'src/index.ts', settings: 'src/settings.ts', 'update-task': 'src/internal/updateTask.ts' }, shims: true })
