/**
 * The safetensors format (https://github.com/huggingface/safetensors): an 8-byte little-endian
 * header length N, N bytes of JSON (`{name: {dtype, shape, data_offsets: [begin, end]}}` plus
 * an optional `__metadata__` of strings), then the raw little-endian tensor data. Pure
 * functions over bytes; reading and writing files is the caller's (see {@link Checkpoint}).
 *
 * Reads F64, F32, F16, BF16, I64, I32, I16, I8, U8, BOOL; writes F32 and I32.
 *
 * @since 0.1.0
 */
import * as E from 'fp-ts/lib/Either.js'

/**
 * @category models
 * @since 0.1.0
 */
export type DType = 'F64' | 'F32' | 'F16' | 'BF16' | 'I64' | 'I32' | 'I16' | 'I8' | 'U8' | 'BOOL'

const SIZES: Readonly<Record<DType, number>> = { F64: 8, F32: 4, F16: 2, BF16: 2, I64: 8, I32: 4, I16: 2, I8: 1, U8: 1, BOOL: 1 }

/**
 * One tensor. Floating types are decoded to float32 (F64 to float64), integers to int32 (I64
 * values beyond 2^31 throw a decoding error), so `data` is ready for a tensor.
 *
 * @category models
 * @since 0.1.0
 */
export interface Entry {
  readonly dtype: DType
  readonly shape: ReadonlyArray<number>
  readonly data: Float32Array | Float64Array | Int32Array
}

/**
 * A decoded file.
 *
 * @category models
 * @since 0.1.0
 */
export interface File {
  readonly tensors: ReadonlyMap<string, Entry>
  readonly metadata: Readonly<Record<string, string>>
}

/** IEEE half to float. */
const half = (h: number): number => {
  const sign = h & 0x8000 ? -1 : 1
  const exp = (h >> 10) & 0x1f
  const frac = h & 0x3ff
  if (exp === 0) return sign * Math.pow(2, -14) * (frac / 1024)
  if (exp === 31) return frac === 0 ? sign * Infinity : NaN
  return sign * Math.pow(2, exp - 15) * (1 + frac / 1024)
}

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

/** `count` 16-bit words at byte `offset`, copied into an aligned array (a memcpy). */
const words16 = (view: DataView, offset: number, count: number): Uint16Array =>
  new Uint16Array(new Uint8Array(view.buffer, view.byteOffset + offset, 2 * count).slice().buffer)

let halfTable: Float32Array | undefined
/** Every IEEE half as a float, by its bits (256 KB, made once). */
const halves = (): Float32Array => {
  if (halfTable === undefined) {
    halfTable = new Float32Array(65536)
    for (let h = 0; h < 65536; h++) halfTable[h] = half(h)
  }
  return halfTable
}

/**
 * F32, BF16 and F16 on a little-endian host (every host mtrl runs on) without a per-value
 * DataView call: F32 copied at memcpy speed (into its own buffer), BF16 widened by a shift,
 * F16 by a table; undefined elsewhere. Loading a 0.5B model is dominated by these loops.
 */
const fastFloats = (view: DataView, dtype: DType, offset: number, count: number): Float32Array | undefined => {
  if (!littleEndian) return undefined
  if (dtype === 'F32') {
    const at = view.byteOffset + offset
    return at % 4 === 0 ? new Float32Array(view.buffer, at, count).slice() : new Float32Array(new Uint8Array(view.buffer, at, 4 * count).slice().buffer)
  }
  if (dtype === 'BF16') {
    const words = words16(view, offset, count)
    const bits = new Uint32Array(count)
    for (let i = 0; i < count; i++) bits[i] = words[i]! << 16
    return new Float32Array(bits.buffer)
  }
  if (dtype === 'F16') {
    const words = words16(view, offset, count)
    const table = halves()
    const out = new Float32Array(count)
    for (let i = 0; i < count; i++) out[i] = table[words[i]!]!
    return out
  }
  return undefined
}

const decodeData = (view: DataView, dtype: DType, offset: number, count: number): Float32Array | Float64Array | Int32Array => {
  const fast = fastFloats(view, dtype, offset, count)
  if (fast !== undefined) return fast
  switch (dtype) {
    case 'F32': {
      const out = new Float32Array(count)
      for (let i = 0; i < count; i++) out[i] = view.getFloat32(offset + 4 * i, true)
      return out
    }
    case 'F64': {
      const out = new Float64Array(count)
      for (let i = 0; i < count; i++) out[i] = view.getFloat64(offset + 8 * i, true)
      return out
    }
    case 'F16': {
      const out = new Float32Array(count)
      for (let i = 0; i < count; i++) out[i] = half(view.getUint16(offset + 2 * i, true))
      return out
    }
    case 'BF16': {
      const out = new Float32Array(count)
      const bits = new DataView(new ArrayBuffer(4))
      for (let i = 0; i < count; i++) {
        bits.setUint32(0, view.getUint16(offset + 2 * i, true) << 16, true)
        out[i] = bits.getFloat32(0, true)
      }
      return out
    }
    case 'I64': {
      const out = new Int32Array(count)
      for (let i = 0; i < count; i++) {
        const v = view.getBigInt64(offset + 8 * i, true)
        if (v > 2147483647n || v < -2147483648n) throw new RangeError(`I64 value ${v} does not fit in int32`)
        out[i] = Number(v)
      }
      return out
    }
    case 'I32': {
      const out = new Int32Array(count)
      for (let i = 0; i < count; i++) out[i] = view.getInt32(offset + 4 * i, true)
      return out
    }
    case 'I16': {
      const out = new Int32Array(count)
      for (let i = 0; i < count; i++) out[i] = view.getInt16(offset + 2 * i, true)
      return out
    }
    case 'I8': {
      const out = new Int32Array(count)
      for (let i = 0; i < count; i++) out[i] = view.getInt8(offset + i)
      return out
    }
    case 'U8':
    case 'BOOL': {
      const out = new Int32Array(count)
      for (let i = 0; i < count; i++) out[i] = view.getUint8(offset + i)
      return out
    }
  }
}

const isDType = (value: unknown): value is DType => typeof value === 'string' && value in SIZES

/**
 * Where one tensor lies in a file: its dtype, shape, and its bytes `[begin, end)` counted from
 * the file's first byte.
 *
 * @category models
 * @since 0.6.0
 */
export interface Placed {
  readonly name: string
  readonly dtype: DType
  readonly shape: ReadonlyArray<number>
  readonly begin: number
  readonly end: number
}

/**
 * A file's header: its tensors' places and its metadata.
 *
 * @category models
 * @since 0.6.0
 */
export interface Header {
  readonly tensors: ReadonlyArray<Placed>
  readonly metadata: Readonly<Record<string, string>>
}

/**
 * The length of the JSON header from a file's first 8 bytes.
 *
 * @category destructors
 * @since 0.6.0
 */
export const headerLength = (first: Uint8Array): E.Either<string, number> =>
  first.length < 8
    ? E.left(`${first.length} bytes, shorter than the 8-byte header length`)
    : E.right(Number(new DataView(first.buffer, first.byteOffset, 8).getBigUint64(0, true)))

/**
 * Reads the JSON header (`json`, the `headerLength` bytes after the first 8) of a file of
 * `fileLength` bytes: every tensor's place, checked against its shape and the file's end, so
 * that a file can be read tensor by tensor (files past 2 GiB, which one read cannot hold).
 *
 * @category destructors
 * @since 0.6.0
 */
export const header = (json: Uint8Array, fileLength: number): E.Either<string, Header> => {
  try {
    const dataStart = 8 + json.length
    if (dataStart > fileLength) return E.left(`header length ${json.length} beyond the end of the file (${fileLength} bytes)`)
    const parsed: unknown = JSON.parse(new TextDecoder().decode(json))
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return E.left('the header is not a JSON object')
    const dataLength = fileLength - dataStart
    const tensors: Placed[] = []
    let metadata: Record<string, string> = {}
    for (const [name, info] of Object.entries(parsed as Record<string, unknown>)) {
      if (name === '__metadata__') {
        metadata = { ...(info as Record<string, string>) }
        continue
      }
      const { dtype, shape, data_offsets: offsets } = (info ?? {}) as { dtype?: unknown; shape?: unknown; data_offsets?: unknown }
      if (!isDType(dtype)) return E.left(`${name}: unsupported dtype ${JSON.stringify(dtype)}`)
      if (!Array.isArray(shape) || !shape.every((d) => Number.isInteger(d) && d >= 0)) return E.left(`${name}: bad shape ${JSON.stringify(shape)}`)
      if (!Array.isArray(offsets) || offsets.length !== 2) return E.left(`${name}: bad data_offsets ${JSON.stringify(offsets)}`)
      const [begin, end] = offsets as [number, number]
      const count = (shape as number[]).reduce((a, b) => a * b, 1)
      if (!(Number.isInteger(begin) && Number.isInteger(end) && begin >= 0 && end <= dataLength && end - begin === count * SIZES[dtype]))
        return E.left(`${name}: data_offsets [${begin}, ${end}] do not hold ${count} ${dtype} values within ${dataLength} data bytes`)
      tensors.push({ name, dtype, shape: shape as number[], begin: dataStart + begin, end: dataStart + end })
    }
    return E.right({ tensors, metadata })
  } catch (e) {
    return E.left(e instanceof Error ? e.message : String(e))
  }
}

/**
 * One tensor's values from its bytes (`end - begin` of them, as placed by {@link header}).
 *
 * @category destructors
 * @since 0.6.0
 */
export const tensor = (placed: Placed, bytes: Uint8Array): Entry => {
  const count = placed.shape.reduce((a, b) => a * b, 1)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return { dtype: placed.dtype, shape: placed.shape, data: decodeData(view, placed.dtype, 0, count) }
}

/**
 * Decodes the bytes of a safetensors file. Every failure (truncation, bad JSON, offsets out of
 * range or not matching the shape) is a `Left` with the reason.
 *
 * @category destructors
 * @since 0.1.0
 */
export const decode = (bytes: Uint8Array): E.Either<string, File> => {
  const length = headerLength(bytes)
  if (E.isLeft(length)) return length
  if (8 + length.right > bytes.length) return E.left(`header length ${length.right} beyond the end of the file (${bytes.length} bytes)`)
  const read = header(bytes.subarray(8, 8 + length.right), bytes.length)
  if (E.isLeft(read)) return read
  try {
    const tensors = new Map<string, Entry>()
    for (const placed of read.right.tensors) tensors.set(placed.name, tensor(placed, bytes.subarray(placed.begin, placed.end)))
    return E.right({ tensors, metadata: read.right.metadata })
  } catch (e) {
    return E.left(e instanceof Error ? e.message : String(e))
  }
}

/**
 * A tensor to write: float32 data is written as F32, int32 as I32.
 *
 * @category models
 * @since 0.1.0
 */
export interface Writable {
  readonly shape: ReadonlyArray<number>
  readonly data: Float32Array | Int32Array
}

/**
 * Encodes tensors (in the map's order) and string metadata as safetensors bytes; the header
 * is padded with spaces to a multiple of 8 bytes so the data is aligned.
 *
 * @category constructors
 * @since 0.1.0
 */
export const encode = (tensors: ReadonlyMap<string, Writable>, metadata: Readonly<Record<string, string>> = {}): Uint8Array => {
  const header: Record<string, unknown> = {}
  if (Object.keys(metadata).length > 0) header['__metadata__'] = metadata
  let offset = 0
  for (const [name, t] of tensors) {
    const count = t.shape.reduce((a, b) => a * b, 1)
    if (count !== t.data.length) throw new Error(`Safetensors.encode: ${name} has ${t.data.length} values for shape [${t.shape.join(', ')}]`)
    header[name] = { dtype: t.data instanceof Float32Array ? 'F32' : 'I32', shape: [...t.shape], data_offsets: [offset, offset + 4 * count] }
    offset += 4 * count
  }
  let json = JSON.stringify(header)
  const jsonBytes = new TextEncoder().encode(json)
  const padded = Math.ceil(jsonBytes.length / 8) * 8
  json += ' '.repeat(padded - jsonBytes.length)
  const out = new Uint8Array(8 + padded + offset)
  const view = new DataView(out.buffer)
  view.setBigUint64(0, BigInt(padded), true)
  out.set(new TextEncoder().encode(json), 8)
  let at = 8 + padded
  for (const t of tensors.values()) {
    const isFloat = t.data instanceof Float32Array
    for (let i = 0; i < t.data.length; i++, at += 4) {
      if (isFloat) view.setFloat32(at, t.data[i]!, true)
      else view.setInt32(at, t.data[i]!, true)
    }
  }
  return out
}

/**
 * The values of an entry as float32 (weights stored in any precision).
 *
 * @category destructors
 * @since 0.1.0
 */
export const toFloat32 = (entry: Entry): Float32Array => (entry.data instanceof Float32Array ? entry.data : Float32Array.from(entry.data))
