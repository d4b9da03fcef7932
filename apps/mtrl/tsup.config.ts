import { packageConfig } from '../../tsup.shared.js'

// replica-backend: the module SFT's replica threads import to activate the run's backend.
export default packageConfig({ entry: { main: 'src/main.ts', 'replica-backend': 'src/ReplicaBackend.ts' }, format: ['esm'], dts: false })
