/**
 * `node:fs` in the browser: one in-memory file system (memfs) for the page's worker. Run folders,
 * checkpoints and loaded checkpoint files live here.
 */
import { fs } from 'memfs'

export default fs
