import { projectConfig } from '../../vitest.shared.js'

export default projectConfig(__dirname)
