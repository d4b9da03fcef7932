import { packageConfig } from '../../tsup.shared.js'

// The replicas' task is its own entry: each worker thread imports it from dist/.
export default packageConfig({ entry: { index: 'src/index.ts', 'update-task': 'src/internal/updateTask.ts' }, shims: true })
