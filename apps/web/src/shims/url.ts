/** `node:url` in the browser: file URLs of the in-memory file system's paths. */
export const pathToFileURL = (path: string): URL => new URL(`file://${path.startsWith('/') ? '' : '/'}${path}`)
export const fileURLToPath = (url: string | URL): string => decodeURIComponent(new URL(String(url)).pathname)
export default { pathToFileURL, fileURLToPath }
