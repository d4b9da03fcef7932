// a library tagged platform:any may import no Node built-in (with or without the node: prefix)
import { readFileSync } from 'node:fs'
import { join } from 'path'

export const read = (dir: string): string => readFileSync(join(dir, 'x'), 'utf8')
