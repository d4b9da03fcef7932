import { packageConfig } from '../../tsup.shared.js'

export default packageConfig()
