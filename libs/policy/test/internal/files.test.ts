import fc from 'fast-check'
import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadSafetensors } from '../../src/internal/files.js'
import * as Safetensors from '../../src/Safetensors.js'

const dir = mkdtempSync(join(tmpdir(), 'files-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Header JSON bytes padded to 8, as the Python writer pads them. */
const headerBytes = (header: Record<string, unknown>): Uint8Array => {
  const json = JSON.stringify(header)
  return new TextEncoder().encode(json + ' '.repeat((8 - (json.length % 8)) % 8))
}

describe('loadSafetensors (tensor by tensor)', () => {
  it('reads what the whole-file decode reads, for F32, BF16, F16 and I32 tensors', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.float({ noNaN: true, noDefaultInfinity: true }), { minLength: 1, maxLength: 20 }), async (floats) => {
        const n = floats.length
        const f32 = new Uint8Array(Float32Array.from(floats).buffer)
        const halves = new Uint8Array(2 * n).map((_, i) => (i * 37 + n) & 0xff)
        const data = new Uint8Array(4 * n + 2 * n + 2 * n + 4)
        data.set(f32, 0)
        data.set(halves, 4 * n)
        data.set(halves, 6 * n)
        new DataView(data.buffer).setInt32(8 * n, -7, true)
        const json = headerBytes({
          a: { dtype: 'F32', shape: [n], data_offsets: [0, 4 * n] },
          b: { dtype: 'BF16', shape: [n, 1], data_offsets: [4 * n, 6 * n] },
          c: { dtype: 'F16', shape: [n], data_offsets: [6 * n, 8 * n] },
          d: { dtype: 'I32', shape: [], data_offsets: [8 * n, 8 * n + 4] },
          __metadata__: { format: 'pt' }
        })
        const bytes = new Uint8Array(8 + json.length + data.length)
        new DataView(bytes.buffer).setBigUint64(0, BigInt(json.length), true)
        bytes.set(json, 8)
        bytes.set(data, 8 + json.length)
        const path = join(dir, 'x.safetensors')
        writeFileSync(path, bytes)
        const whole = Safetensors.decode(bytes)
        const read = await loadSafetensors(path)()
        if (whole._tag === 'Left' || read._tag === 'Left') throw new Error(JSON.stringify([whole, read]))
        expect(read.right).toEqual(whole.right)
        expect(Array.from(read.right.tensors.get('a')!.data)).toEqual(Array.from(Float32Array.from(floats)))
      }),
      { numRuns: 20 }
    )
  })

  it('reads a tensor that lies past 2 GiB (a sparse file: one read of the whole file would fail)', async () => {
    const at = 2 ** 31 + 12
    const json = headerBytes({ far: { dtype: 'F32', shape: [2], data_offsets: [at, at + 8] } })
    const path = join(dir, 'big.safetensors')
    const fd = openSync(path, 'w')
    const head = new Uint8Array(8)
    new DataView(head.buffer).setBigUint64(0, BigInt(json.length), true)
    writeSync(fd, head, 0, 8, 0)
    writeSync(fd, json, 0, json.length, 8)
    ftruncateSync(fd, 8 + json.length + at + 8)
    writeSync(fd, new Uint8Array(Float32Array.of(1.5, -2).buffer), 0, 8, 8 + json.length + at)
    closeSync(fd)
    const read = await loadSafetensors(path)()
    if (read._tag === 'Left') throw new Error(JSON.stringify(read.left))
    expect(Array.from(read.right.tensors.get('far')!.data)).toEqual([1.5, -2])
  })

  it('names the file and the reason for a truncated or missing file', async () => {
    const path = join(dir, 'short.safetensors')
    const json = headerBytes({ a: { dtype: 'F32', shape: [4], data_offsets: [0, 16] } })
    const bytes = new Uint8Array(8 + json.length + 8)
    new DataView(bytes.buffer).setBigUint64(0, BigInt(json.length), true)
    bytes.set(json, 8)
    writeFileSync(path, bytes)
    const short = await loadSafetensors(path)()
    expect(short).toMatchObject({ _tag: 'Left', left: { _tag: 'InvalidSafetensors', path } })
    expect(JSON.stringify(short)).toContain('data_offsets [0, 16]')
    expect(await loadSafetensors(join(dir, 'none.safetensors'))()).toMatchObject({ _tag: 'Left', left: { _tag: 'FileError' } })
  })
})
