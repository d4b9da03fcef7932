/** `node:os` in the browser: the few answers the libraries ask for. */
export const availableParallelism = (): number => globalThis.navigator?.hardwareConcurrency ?? 1
export const cpus = (): ReadonlyArray<unknown> => Array.from({ length: availableParallelism() }, () => ({}))
export const tmpdir = (): string => '/tmp'
export const hostname = (): string => 'browser'
export const platform = (): string => 'browser'
export const EOL = '\n'
export default { availableParallelism, cpus, tmpdir, hostname, platform, EOL }
