/**
 * The WebAssembly SIMD attention kernel (`attendKernel.wat`), compiled once per thread from the
 * bytes committed in `attendKernelBytes.ts`: no file, no fetch, nothing downloaded, so it loads
 * the same way in Node, browsers and worker threads. Each KV cache instantiates it over its own
 * memory (`kvArena.ts`). Where the engine has no WebAssembly or no SIMD, `WebAssembly.validate`
 * is false and decoding keeps the JavaScript kernel (`hostKernels.attend`).
 */
import { attendKernelBase64 } from './attendKernelBytes.js'

/** The part of the WebAssembly JS API the kernel uses (declared here: the lib's types hold no DOM). */
export interface WasmApi {
  readonly validate: (bytes: Uint8Array) => boolean
  readonly Module: new (bytes: Uint8Array) => object
  readonly Instance: new (module: object, imports: object) => { readonly exports: Record<string, unknown> }
  readonly Memory: new (descriptor: { readonly initial: number; readonly maximum: number }) => { readonly buffer: ArrayBuffer }
}

/** The signature of the kernel's `attend` export (byte addresses and sizes; see the .wat). */
export type AttendExport = (
  q: number,
  k: number,
  v: number,
  slots: number,
  positions: number,
  out: number,
  scores: number,
  rows: number,
  H: number,
  Hkv: number,
  hd: number,
  cap: number
) => void

/** A compiled kernel and the API that instantiates it. */
export interface AttendKernel {
  readonly wasm: WasmApi
  readonly module: object
}

/** The committed kernel's bytes. */
export const kernelBytes = (): Uint8Array => Uint8Array.from(atob(attendKernelBase64), (c) => c.charCodeAt(0))

/** This engine's WebAssembly, if it has one. */
export const engineWasm = (): WasmApi | undefined => (globalThis as { WebAssembly?: WasmApi }).WebAssembly

/**
 * The kernel of `bytes` on `wasm`, or undefined when the engine cannot run it (no WebAssembly,
 * or a `validate` that refuses SIMD). A synchronous compile: the module is well under the 4 KB
 * that browsers allow synchronously on the main thread.
 */
export const kernelOf = (bytes: Uint8Array, wasm: WasmApi | undefined): AttendKernel | undefined =>
  wasm === undefined || !wasm.validate(bytes) ? undefined : { wasm, module: new wasm.Module(bytes) }

// compiled at first use, once per thread (a module is immutable and instantiated per cache)
let compiled: { readonly kernel: AttendKernel | undefined } | undefined

/** The committed kernel on this engine, compiled at the first call; undefined without SIMD. */
export const defaultKernel = (): AttendKernel | undefined => (compiled ??= { kernel: kernelOf(kernelBytes(), engineWasm()) }).kernel
