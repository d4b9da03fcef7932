import { packageConfig } from '../../tsup.shared.js'

export default packageConfig({ entry: { main: 'src/main.ts' }, format: ['esm'], dts: false })
