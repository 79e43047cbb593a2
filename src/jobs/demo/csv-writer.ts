/**
 * CSV output in the native import format: UTF-8, one header row, `\n` line ends, empty field = null,
 * booleans `true`/`false`. A field holding a comma, quote or line break is quoted, inner quotes doubled.
 *
 * Rows go into a byte buffer that is written out about every megabyte. The two big files (bars, basics) use the
 * field appenders (`ascii`, `int`, `decimal`, ...), which write digits straight into the buffer: building millions
 * of small strings would spend most of the run in the garbage collector. A file is written under a temporary
 * name in its own folder and renamed into place when complete.
 */
import { type FileHandle, open, rename, rm } from 'node:fs/promises'
import path from 'node:path'

export type CsvValue = string | number | boolean | null | undefined

const NEEDS_QUOTES = /[",\r\n]/

export function csvField(value: CsvValue): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  const text = typeof value === 'number' ? String(value) : value
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/** One CSV line without its line end. */
export function csvLine(values: readonly CsvValue[]): string {
  let line = ''
  for (let i = 0; i < values.length; i++) {
    if (i > 0) line += ','
    line += csvField(values[i])
  }
  return line
}

/** Bytes of an ASCII text, for the `ascii` appender (codes, dates). */
export function asciiBytes(text: string): Uint8Array {
  return Buffer.from(text, 'latin1')
}

const FLUSH_BYTES = 1 << 20
const COMMA = 44
const NEWLINE = 10
const MINUS = 45
const DOT = 46
const ZERO = 48
const TRUE = asciiBytes('true')
const FALSE = asciiBytes('false')
const POW10 = [1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000]

export class CsvFileWriter {
  readonly name: string
  readonly finalPath: string
  readonly tempPath: string
  #handle: FileHandle
  #columns: number
  #buf: Buffer = Buffer.allocUnsafe(FLUSH_BYTES + 65_536)
  #pos = 0
  #rows = 0

  private constructor(name: string, finalPath: string, tempPath: string, handle: FileHandle, columns: number) {
    this.name = name
    this.finalPath = finalPath
    this.tempPath = tempPath
    this.#handle = handle
    this.#columns = columns
  }

  /** Opens `dir/.name.<pid>.tmp` and writes the header. */
  static async create(dir: string, name: string, header: readonly string[]): Promise<CsvFileWriter> {
    const finalPath = path.join(dir, name)
    const tempPath = path.join(dir, `.${name}.${process.pid}.tmp`)
    const handle = await open(tempPath, 'w')
    const writer = new CsvFileWriter(name, finalPath, tempPath, handle, header.length)
    writer.#text(csvLine(header))
    return writer
  }

  get rows(): number {
    return this.#rows
  }

  /** Appends a data row of plain values (quoted where needed). */
  row(values: readonly CsvValue[]): void {
    if (values.length !== this.#columns) {
      throw new RangeError(`${this.name}: row has ${values.length} fields, the header has ${this.#columns}`)
    }
    this.#text(csvLine(values))
    this.#rows++
  }

  // Field appenders for rows built field by field. The caller writes the separators and ends the row; the
  // values never need quoting (ASCII codes and dates, numbers, booleans).

  ascii(bytes: Uint8Array): this {
    this.#ensure(bytes.length)
    this.#buf.set(bytes, this.#pos)
    this.#pos += bytes.length
    return this
  }

  comma(): this {
    this.#ensure(1)
    this.#buf[this.#pos++] = COMMA
    return this
  }

  bool(value: boolean): this {
    return this.ascii(value ? TRUE : FALSE)
  }

  /** An integer (|n| < 2^53). */
  int(n: number): this {
    this.#ensure(24)
    const buf = this.#buf
    let v = n
    if (v < 0) {
      buf[this.#pos++] = MINUS
      v = -v
    }
    let len = 1
    for (let m = v; m >= 10; m = Math.floor(m / 10)) len++
    let p = this.#pos + len
    while (v >= 10) {
      const q = Math.floor(v / 10)
      buf[--p] = ZERO + (v - q * 10)
      v = q
    }
    buf[--p] = ZERO + v
    this.#pos += len
    return this
  }

  /** A scaled integer written with `digits` decimals: decimal(1234, 2) -> `12.34`. Never `-0`. */
  decimal(scaled: number, digits: number): this {
    const unit = POW10[digits]!
    let v = scaled
    if (v < 0) {
      this.#ensure(1)
      this.#buf[this.#pos++] = MINUS
      v = -v
    }
    const whole = Math.floor(v / unit)
    let frac = v - whole * unit
    this.int(whole)
    this.#ensure(digits + 1)
    const buf = this.#buf
    buf[this.#pos] = DOT
    for (let i = digits; i >= 1; i--) {
      const q = Math.floor(frac / 10)
      buf[this.#pos + i] = ZERO + (frac - q * 10)
      frac = q
    }
    this.#pos += digits + 1
    return this
  }

  /** `value` rounded to `digits` decimals (half away from zero on the scaled value). */
  fixed(value: number, digits: number): this {
    return this.decimal(Math.round(value * POW10[digits]!), digits)
  }

  endRow(): void {
    this.#ensure(1)
    this.#buf[this.#pos++] = NEWLINE
    this.#rows++
  }

  /** Writes the buffer out once it has grown past about a megabyte; call it between batches of rows. */
  async maybeFlush(): Promise<void> {
    if (this.#pos >= FLUSH_BYTES) await this.#flush()
  }

  /** Flushes, closes and renames the file into place; returns the number of data rows. */
  async commit(): Promise<number> {
    await this.#flush()
    await this.#handle.close()
    await rename(this.tempPath, this.finalPath)
    return this.#rows
  }

  /** Closes and deletes the temporary file (after a failure). */
  async abort(): Promise<void> {
    await this.#handle.close().catch(() => undefined)
    await rm(this.tempPath, { force: true })
  }

  #text(line: string): void {
    this.#ensure(line.length * 3 + 1)
    this.#pos += this.#buf.write(line, this.#pos, 'utf8')
    this.#buf[this.#pos++] = NEWLINE
  }

  #ensure(bytes: number): void {
    if (this.#pos + bytes <= this.#buf.length) return
    const bigger = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.#pos + bytes))
    this.#buf.copy(bigger, 0, 0, this.#pos)
    this.#buf = bigger
  }

  async #flush(): Promise<void> {
    let done = 0
    while (done < this.#pos) {
      const { bytesWritten } = await this.#handle.write(this.#buf, done, this.#pos - done)
      done += bytesWritten
    }
    this.#pos = 0
  }
}
