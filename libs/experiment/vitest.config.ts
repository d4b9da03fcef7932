import { projectConfig } from '../../vitest.shared.js'

// The test files run in one module graph per worker (isolate: false): the sources (and
// TensorFlow.js where used) load once, not once per file (this suite's CPU time: 5.1 s to 3.9 s,
// 2-core machine, 2026-12-06). Each file sets the backend it needs and keeps no state another file
// reads.
export default projectConfig(__dirname, { isolate: false })
