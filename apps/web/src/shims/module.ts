/**
 * `node:module` in the browser: `createRequire` works (libraries call it when they load), the
 * require it makes throws when used (nothing in the page resolves Node packages).
 */
export const createRequire = (from: string | URL): ((id: string) => never) & { resolve: (id: string) => never } => {
  const fail = (id: string): never => {
    throw new Error(`require('${id}') from ${String(from)} is not available in the browser`)
  }
  return Object.assign(fail, { resolve: fail })
}
export const builtinModules: ReadonlyArray<string> = []
export default { createRequire, builtinModules }
