/** `node:fs/promises` in the browser: the promise API of the worker's in-memory file system. */
import { fs } from 'memfs'

export default fs.promises
