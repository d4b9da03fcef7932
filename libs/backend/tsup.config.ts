import { packageConfig } from '../../tsup.shared.js'

// import.meta.url in the CommonJS build
export default packageConfig({ shims: true })
