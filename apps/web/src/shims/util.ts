/** `node:util` in the browser: what the libraries' dependencies call when they load or log. */
export const debuglog = (): ((...args: ReadonlyArray<unknown>) => void) => Object.assign(() => undefined, { enabled: false })
export const deprecate = <F>(f: F): F => f
export const inherits = (ctor: { prototype: object; super_?: unknown }, superCtor: { prototype: object }): void => {
  ctor.super_ = superCtor
  Object.setPrototypeOf(ctor.prototype, superCtor.prototype)
}
export const inspect = (value: unknown): string => {
  try {
    return typeof value === 'string' ? value : JSON.stringify(value)
  } catch {
    return String(value)
  }
}
export const format = (first: unknown, ...rest: ReadonlyArray<unknown>): string => [first, ...rest].map(inspect).join(' ')
export const promisify =
  <T>(f: (...args: Array<unknown>) => void) =>
  (...args: ReadonlyArray<unknown>): Promise<T> =>
    new Promise((resolve, reject) => f(...args, (error: unknown, value: T) => (error ? reject(error) : resolve(value))))
export const isDeepStrictEqual = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)
export const types = { isPromise: (x: unknown): boolean => x instanceof Promise }
const Decoder = globalThis.TextDecoder
const Encoder = globalThis.TextEncoder
export { Decoder as TextDecoder, Encoder as TextEncoder }
export default { debuglog, deprecate, inherits, inspect, format, promisify, isDeepStrictEqual, types, TextDecoder: Decoder, TextEncoder: Encoder }
