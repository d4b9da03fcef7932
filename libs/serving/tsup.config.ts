import { packageConfig } from '../../tsup.shared.js'

// shims: import.meta.url in the CJS build (xgrammar's loader resolves its package from here)
export default packageConfig({ shims: true })
