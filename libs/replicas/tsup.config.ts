import { packageConfig } from '../../tsup.shared.js'

// The worker is its own entry: Pool starts it as a worker thread from dist/.
export default packageConfig({ entry: { index: 'src/index.ts', worker: 'src/internal/worker.ts' }, shims: true })
