import fc from 'fast-check'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Safetensors.js'

/** Hand-built file: header JSON + raw little-endian bytes, as Python's safetensors writes it. */
const handBuilt = (header: Record<string, unknown>, data: Uint8Array): Uint8Array => {
  const json = new TextEncoder().encode(JSON.stringify(header))
  const out = new Uint8Array(8 + json.length + data.length)
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true)
  out.set(json, 8)
  out.set(data, 8 + json.length)
  return out
}

describe('Safetensors', () => {
  it('round-trips float32 and int32 tensors bit-exactly through a file', () => {
    fc.assert(
      fc.property(
        fc.array(fc.float({ noNaN: true }), { minLength: 1, maxLength: 24 }),
        fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { minLength: 1, maxLength: 8 }),
        (floats, ints) => {
          const tensors = new Map<string, _.Writable>([
            ['model.a.weight', { shape: [floats.length], data: Float32Array.from(floats) }],
            ['b', { shape: [1, ints.length], data: Int32Array.from(ints) }]
          ])
          const path = join(mkdtempSync(join(tmpdir(), 'st-')), 'x.safetensors')
          writeFileSync(path, _.encode(tensors, { format: 'pt' }))
          const bytes = new Uint8Array(readFileSync(path))
          expect(Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true)) % 8).toBe(0)
          const decoded = _.decode(bytes)
          if (decoded._tag === 'Left') throw new Error(decoded.left)
          expect(decoded.right.metadata).toEqual({ format: 'pt' })
          const a = decoded.right.tensors.get('model.a.weight')!
          expect(a.dtype).toBe('F32')
          expect(new Uint32Array((a.data as Float32Array).buffer)).toEqual(new Uint32Array(Float32Array.from(floats).buffer))
          const b = decoded.right.tensors.get('b')!
          expect(b.dtype).toBe('I32')
          expect(b.shape).toEqual([1, ints.length])
          expect(Array.from(b.data)).toEqual(ints)
        }
      ),
      { numRuns: 30 }
    )
  })

  it('reads F16, BF16 and I64 as written by other tools', () => {
    const data = new Uint8Array(2 * 3 + 2 * 2 + 8 * 2)
    const view = new DataView(data.buffer)
    ;[0x3c00, 0xc000, 0x3555].forEach((h, i) => view.setUint16(2 * i, h, true)) // 1, -2, ~0.33325
    ;[0x3f80, 0x4049].forEach((h, i) => view.setUint16(6 + 2 * i, h, true)) // 1, ~3.140625
    view.setBigInt64(10, -5n, true)
    view.setBigInt64(18, 123456789n, true)
    const file = handBuilt(
      {
        h: { dtype: 'F16', shape: [3], data_offsets: [0, 6] },
        b: { dtype: 'BF16', shape: [2], data_offsets: [6, 10] },
        i: { dtype: 'I64', shape: [2, 1], data_offsets: [10, 26] }
      },
      data
    )
    const decoded = _.decode(file)
    if (decoded._tag === 'Left') throw new Error(decoded.left)
    const t = decoded.right.tensors
    expect(Array.from(t.get('h')!.data)).toEqual([1, -2, Math.fround(0.333251953125)])
    expect(Array.from(t.get('b')!.data)).toEqual([1, 3.140625])
    expect(Array.from(t.get('i')!.data)).toEqual([-5, 123456789])
  })

  it('rejects truncated files and offsets that do not match the shape', () => {
    expect(_.decode(new Uint8Array(4))._tag).toBe('Left')
    const bad = handBuilt({ w: { dtype: 'F32', shape: [4], data_offsets: [0, 12] } }, new Uint8Array(12))
    expect(_.decode(bad)._tag).toBe('Left')
    const outside = handBuilt({ w: { dtype: 'F32', shape: [4], data_offsets: [0, 16] } }, new Uint8Array(8))
    expect(_.decode(outside)._tag).toBe('Left')
  })
})
