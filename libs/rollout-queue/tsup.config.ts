import { packageConfig } from '../../tsup.shared.js'

// The rollout thread is its own entry: Threads starts it as a worker thread from dist/.
export default packageConfig({ entry: { index: 'src/index.ts', 'thread-worker': 'src/internal/threadWorker.ts' }, shims: true })
