import { packageConfig } from '../../tsup.shared.js'

// import.meta.url in the CommonJS build (the report inlines Chart.js, found from here)
export default packageConfig({ shims: true })
