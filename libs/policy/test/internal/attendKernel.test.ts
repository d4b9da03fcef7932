import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { compile, watPath } from '../../scripts/attendKernel.js'
import * as _ from '../../src/internal/attendKernel.js'

describe('attendKernel', () => {
  it('the committed bytes are those of attendKernel.wat (regenerate with npm run build:kernel)', async () => {
    const bytes = await compile(readFileSync(watPath, 'utf8'))
    expect(Array.from(_.kernelBytes())).toEqual(Array.from(bytes))
  })

  it('stays under 4 KB, what browsers compile synchronously on the main thread', () => {
    expect(_.kernelBytes().length).toBeLessThan(4096)
  })

  it('compiles here (Node has SIMD) and exports attend', () => {
    const kernel = _.defaultKernel()
    expect(kernel).toBeDefined()
    expect(_.kernelOf(_.kernelBytes(), _.engineWasm())).toBeDefined()
  })

  it('gives no kernel where the engine refuses the bytes (no SIMD) or has no WebAssembly', () => {
    const noSimd: _.WasmApi = { ..._.engineWasm()!, validate: () => false }
    expect(_.kernelOf(_.kernelBytes(), noSimd)).toBeUndefined()
    expect(_.kernelOf(_.kernelBytes(), undefined)).toBeUndefined()
    // a real refusal: the same bytes with the SIMD prefix opcode (0xfd) replaced by an unknown one
    const broken = _.kernelBytes().map((b) => (b === 0xfd ? 0xff : b))
    expect(_.kernelOf(broken, _.engineWasm())).toBeUndefined()
  })
})
