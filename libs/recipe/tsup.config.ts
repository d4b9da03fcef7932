import { packageConfig } from '../../tsup.shared.js'

// The rollout threads' environment module is its own entry: each thread imports it from dist/.
export default packageConfig({ entry: { index: 'src/index.ts', 'thread-envs': 'src/internal/threadEnvs.ts' }, shims: true })
