import { packageConfig } from '../../tsup.shared.js'

// The replica worker is its own entry: Replicas starts it as a worker thread from dist/.
export default packageConfig({ entry: { index: 'src/index.ts', 'replica-worker': 'src/internal/replicaWorker.ts' }, shims: true })
