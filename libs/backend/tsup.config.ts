import { packageConfig } from '../../tsup.shared.js'

// import.meta.url in the CommonJS build; thread-init is its own entry: worker threads import it from dist/.
export default packageConfig({ entry: { index: 'src/index.ts', 'thread-init': 'src/ThreadInit.ts' }, shims: true })
