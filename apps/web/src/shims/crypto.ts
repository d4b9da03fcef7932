/** `node:crypto` in the browser: the random ids and bytes the libraries ask for (Web Crypto). */
export const randomBytes = (n: number): Uint8Array & { toString: (encoding?: string) => string } => {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(n))
  return Object.assign(bytes, { toString: () => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('') })
}
export const randomUUID = (): string => globalThis.crypto.randomUUID()
export const randomInt = (min: number, max?: number): number => {
  const [lo, hi] = max === undefined ? [0, min] : [min, max]
  return lo + Math.floor((globalThis.crypto.getRandomValues(new Uint32Array(1))[0]! / 2 ** 32) * (hi - lo))
}
export default { randomBytes, randomUUID, randomInt }
