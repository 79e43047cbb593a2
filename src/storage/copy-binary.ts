import type { ColumnType } from './array-insert.js'

/** `PGCOPY\n\377\r\n\0`, then a flags word and a header-extension length, both 0. */
const HEADER = Buffer.from([0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00, 0, 0, 0, 0, 0, 0, 0, 0])
const TRAILER = Buffer.from([0xff, 0xff])
const CHUNK_BYTES = 1 << 20
const MS_PER_DAY = 86_400_000
/** PostgreSQL's binary dates count days from 2000-01-01. */
const PG_EPOCH_MS = Date.UTC(2000, 0, 1)
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const JSONB_VERSION = 1

export class CopyValueError extends Error {
  override name = 'CopyValueError'
}

/** Fills buffers of about a megabyte with tuples and hands each one on when full. */
class ChunkWriter {
  private buffer = Buffer.allocUnsafe(CHUNK_BYTES)
  private at = 0
  readonly full: Buffer[] = []

  /** Room for `bytes` more, starting a new buffer (of at least that size) when this one cannot hold them. */
  reserve(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return
    if (this.at > 0) this.full.push(this.buffer.subarray(0, this.at))
    this.buffer = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, bytes))
    this.at = 0
  }

  int16(value: number): void {
    this.reserve(2)
    this.at = this.buffer.writeInt16BE(value, this.at)
  }

  byte(value: number): void {
    this.reserve(1)
    this.at = this.buffer.writeUInt8(value, this.at)
  }

  int32(value: number): void {
    this.reserve(4)
    this.at = this.buffer.writeInt32BE(value, this.at)
  }

  float8(value: number): void {
    this.reserve(12)
    this.at = this.buffer.writeInt32BE(8, this.at)
    // text COPY wrote String(-0), that is 0: the stored value stays the same whichever format wrote it
    this.at = this.buffer.writeDoubleBE(value === 0 ? 0 : value, this.at)
  }

  /** A length word, then the text as UTF-8 (after `prefix`, a single byte such as jsonb's version). */
  text(value: string, prefix?: number): void {
    const extra = prefix === undefined ? 0 : 1
    this.reserve(4 + extra + value.length * 3)
    const lengthAt = this.at
    let at = lengthAt + 4
    if (prefix !== undefined) at = this.buffer.writeUInt8(prefix, at)
    at += this.buffer.write(value, at, 'utf8')
    this.buffer.writeInt32BE(at - lengthAt - 4, lengthAt)
    this.at = at
  }

  /** Everything written, the last partial buffer included; the writer starts afresh after it. */
  drain(): Buffer[] {
    const out = this.full.splice(0)
    if (this.at > 0) out.push(this.buffer.subarray(0, this.at))
    this.buffer = Buffer.allocUnsafe(0)
    this.at = 0
    return out
  }
}

function dayNumber(value: unknown, column: string, cache: Map<string, number>): number {
  if (typeof value === 'string') {
    const known = cache.get(value)
    if (known !== undefined) return known
    const m = ISO_DATE.exec(value)
    if (m) {
      const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))
      const back = new Date(ms).toISOString().slice(0, 10)
      if (back === value) {
        const days = (ms - PG_EPOCH_MS) / MS_PER_DAY
        cache.set(value, days)
        return days
      }
    }
  }
  throw new CopyValueError(`column ${column}: ${JSON.stringify(value)} is not a date (YYYY-MM-DD)`)
}

function numberOf(value: unknown, column: string, type: 'float8' | 'int4'): number {
  if (typeof value !== 'number' || (type === 'int4' && !Number.isInteger(value)))
    throw new CopyValueError(`column ${column}: ${String(value)} is not ${type === 'int4' ? 'an integer' : 'a number'}`)
  return value
}

type FieldWriter = (out: ChunkWriter, value: unknown) => void

function fieldWriter(column: string, type: ColumnType, dates: Map<string, number>): FieldWriter {
  switch (type) {
    case 'float8':
      return (out, v) => out.float8(numberOf(v, column, 'float8'))
    case 'int4':
      return (out, v) => {
        out.int32(4)
        out.int32(numberOf(v, column, 'int4'))
      }
    case 'bool':
      return (out, v) => {
        out.int32(1)
        out.byte(v ? 1 : 0)
      }
    case 'date':
      return (out, v) => {
        out.int32(4)
        out.int32(dayNumber(v, column, dates))
      }
    case 'jsonb':
      return (out, v) => out.text(typeof v === 'string' ? v : JSON.stringify(v), JSONB_VERSION)
    case 'text':
      return (out, v) => out.text(String(v))
  }
}

/**
 * Rows in COPY's binary format, in chunks of about a megabyte: numbers go as their 8 or 4 bytes (no decimal text to
 * format here and parse there), text and json as UTF-8. Each value must already have its column's type: a number
 * for float8 and int4 (an integer), `YYYY-MM-DD` for a date; null or undefined is SQL null.
 */
export function* binaryCopyChunks(
  columns: ReadonlyArray<readonly [name: string, type: ColumnType]>,
  rows: ReadonlyArray<Readonly<Record<string, unknown>>>,
): Generator<Buffer> {
  const dates = new Map<string, number>()
  const writers = columns.map(([name, type]) => fieldWriter(name, type, dates))
  const out = new ChunkWriter()
  yield HEADER
  for (const row of rows) {
    out.int16(columns.length)
    for (let c = 0; c < columns.length; c++) {
      const value = row[columns[c]![0]]
      if (value === null || value === undefined) out.int32(-1)
      else writers[c]!(out, value)
    }
    if (out.full.length > 0) yield* out.full.splice(0)
  }
  yield* out.drain()
  yield TRAILER
}
