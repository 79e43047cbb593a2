/**
 * daily.csv's records zipped line by line with adj_factor.csv's into daily_bars records for COPY: each bar's
 * fields in its row plan's column order, a unit factor as the exponent node shifts the decimal by
 * (`1158366.45` lots → `1158366.45e2` shares, read by PostgreSQL as the same double), then the bar's factor.
 * Only files with the same keys in the same strictly ascending (code, trade_date) order zip: then no bar lacks
 * its factor, no factor is left over, no key repeats, and the rows go in in key order. The records must have
 * passed the byte check (verbatim-source.ts): fields split at every comma, lines at every line feed.
 */

const NEWLINE = 0x0a
const COMMA = 0x2c
const NEWLINE_BUFFER = Buffer.from([NEWLINE])
const OUT_BYTES = 1 << 20
const LONGEST_KEY = 64

export interface ZipLayout {
  /** Fields in each daily.csv record. */
  readonly dailyWidth: number
  /** Fields in each adj_factor.csv record. */
  readonly adjWidth: number
  /** Field positions of the key in each file. */
  readonly dailyKey: readonly [code: number, date: number]
  readonly adjKey: readonly [code: number, date: number]
  /**
   * The daily fields written, as runs of consecutive fields in column order: `from`..`to`, then `exponent`
   * (`e2`) after the last field when it is not empty.
   */
  readonly runs: readonly { readonly from: number; readonly to: number; readonly exponent: string }[]
  /** The factor's field in adj_factor.csv (written last). */
  readonly factor: number
}

/** Where each daily field goes: `fields[i]` is the column field i fills (null: ignored), `shifts` per column. */
export function zipRuns(fields: readonly (number | null)[], shifts: readonly number[]): ZipLayout['runs'] {
  const byColumn = shifts.map((_, column) => fields.indexOf(column))
  const runs: { from: number; to: number; exponent: string }[] = []
  for (const [column, field] of byColumn.entries()) {
    const last = runs.at(-1)
    if (last && last.exponent === '' && last.to === field - 1) last.to = field
    else runs.push({ from: field, to: field, exponent: '' })
    if (shifts[column] !== 0) runs.at(-1)!.exponent = `e${shifts[column]}`
  }
  return runs
}

export interface ZippedBars {
  readonly chunks: AsyncIterable<Buffer>
  /** After `chunks` ended: whether every bar had its factor, in order, and no factor was left over. */
  zipped(): boolean
  /** The codes of the bars zipped, each once (they come in order). */
  codes(): readonly string[]
}

/** The zipped records of `daily` and `adj` (each the bytes after its header). */
export function zipBars(daily: AsyncIterable<Buffer>, adj: AsyncIterable<Buffer>, layout: ZipLayout): ZippedBars {
  let zipped = false
  const writer = new BarWriter(layout)
  async function* chunks(): AsyncGenerator<Buffer> {
    const d = new LineReader(daily[Symbol.asyncIterator]())
    const a = new LineReader(adj[Symbol.asyncIterator]())
    try {
      for (;;) {
        let dEnd = -1
        for (;;) {
          dEnd = writer.splitDaily(d.buf, d.pos)
          if (dEnd < 0) break
          const aEnd = writer.splitAdj(a.buf, a.pos)
          if (aEnd < 0) break
          if (writer.full(dEnd - d.pos + aEnd - a.pos)) yield writer.take()
          if (!writer.pair(d.buf, a.buf)) return
          d.pos = dEnd + 1
          a.pos = aEnd + 1
        }
        if (dEnd === -2 || writer.splitAdj(a.buf, a.pos) === -2) return
        if (dEnd === -1) {
          if (await d.more()) continue
          // daily.csv ended: so must adj_factor.csv
          zipped = a.pos === a.buf.length && !(await a.more())
          break
        }
        if (!(await a.more())) return
      }
      if (writer.size > 0) yield writer.take()
    } finally {
      await d.close()
      await a.close()
    }
  }
  return { chunks: chunks(), zipped: () => zipped, codes: () => writer.codes }
}

class LineReader {
  buf: Buffer = Buffer.alloc(0)
  pos = 0
  readonly #source: AsyncIterator<Buffer>
  #ended = false

  constructor(source: AsyncIterator<Buffer>) {
    this.#source = source
  }

  /** Appends the next chunk (a last line without a line feed gets one); false when nothing came. */
  async more(): Promise<boolean> {
    if (this.#ended) return false
    const next = await this.#source.next()
    const rest = this.buf.subarray(this.pos)
    this.pos = 0
    if (next.done) {
      this.#ended = true
      this.buf = rest.length === 0 ? rest : Buffer.concat([rest, NEWLINE_BUFFER])
      return rest.length > 0
    }
    this.buf = rest.length === 0 ? next.value : Buffer.concat([rest, next.value])
    return true
  }

  async close(): Promise<void> {
    if (!this.#ended) await this.#source.return?.()
  }
}

/**
 * Writes zipped records into 1 MB buffers; checks keys and their order as it goes. Bytes are compared and
 * copied in plain loops: a call into Buffer's native methods costs more than a short field.
 */
class BarWriter {
  readonly #layout: ZipLayout
  readonly #dailyStarts: Int32Array
  readonly #dailyEnds: Int32Array
  readonly #adjStarts: Int32Array
  readonly #adjEnds: Int32Array
  readonly #exponents: (Buffer | undefined)[]
  readonly #previous = Buffer.alloc(2 * LONGEST_KEY)
  #previousCodeLength = -1
  #previousDateLength = 0
  #out = Buffer.allocUnsafe(OUT_BYTES)
  size = 0
  readonly codes: string[] = []

  constructor(layout: ZipLayout) {
    this.#layout = layout
    this.#dailyStarts = new Int32Array(layout.dailyWidth)
    this.#dailyEnds = new Int32Array(layout.dailyWidth)
    this.#adjStarts = new Int32Array(layout.adjWidth)
    this.#adjEnds = new Int32Array(layout.adjWidth)
    this.#exponents = layout.runs.map((r) => (r.exponent === '' ? undefined : Buffer.from(r.exponent)))
  }

  /** Whether a record of `bytes` input bytes might not fit (the output adds commas and exponents). */
  full(bytes: number): boolean {
    return this.size + bytes + 16 * this.#layout.runs.length + 16 > this.#out.length
  }

  take(): Buffer {
    const chunk = this.#out.subarray(0, this.size)
    this.#out = Buffer.allocUnsafe(Math.max(OUT_BYTES, this.#out.length))
    this.size = 0
    return chunk
  }

  /** Fields of the daily line at `start`: the line feed's index, -1 when not in `buf`, -2 for another width. */
  splitDaily(buf: Buffer, start: number): number {
    return splitFields(buf, start, this.#dailyStarts, this.#dailyEnds)
  }

  splitAdj(buf: Buffer, start: number): number {
    return splitFields(buf, start, this.#adjStarts, this.#adjEnds)
  }

  /** Writes the bar of the daily line split last with the factor of the adj line split last; false when they do not zip. */
  pair(d: Buffer, a: Buffer): boolean {
    const layout = this.#layout
    const dStarts = this.#dailyStarts
    const dEnds = this.#dailyEnds
    const aStarts = this.#adjStarts
    const aEnds = this.#adjEnds
    const [dCode, dDate] = layout.dailyKey
    const [aCode, aDate] = layout.adjKey
    const codeStart = dStarts[dCode]!
    const codeEnd = dEnds[dCode]!
    const dateStart = dStarts[dDate]!
    const dateEnd = dEnds[dDate]!
    if (compareBytes(d, codeStart, codeEnd, a, aStarts[aCode]!, aEnds[aCode]!) !== 0) return false
    if (compareBytes(d, dateStart, dateEnd, a, aStarts[aDate]!, aEnds[aDate]!) !== 0) return false
    if (!this.#ascending(d, codeStart, codeEnd, dateStart, dateEnd)) return false
    const out = this.#out
    let o = this.size
    const runs = layout.runs
    for (let r = 0; r < runs.length; r++) {
      const run = runs[r]!
      if (r > 0) out[o++] = COMMA
      const end = dEnds[run.to]!
      for (let i = dStarts[run.from]!; i < end; i++) out[o++] = d[i]!
      const exponent = this.#exponents[r]
      if (exponent && end > dStarts[run.to]!) for (let i = 0; i < exponent.length; i++) out[o++] = exponent[i]!
    }
    out[o++] = COMMA
    const factorEnd = aEnds[layout.factor]!
    for (let i = aStarts[layout.factor]!; i < factorEnd; i++) out[o++] = a[i]!
    out[o++] = NEWLINE
    this.size = o
    return true
  }

  /** Whether (code, date) comes after the previous record's key, in bytes (PostgreSQL's C collation). */
  #ascending(buf: Buffer, codeStart: number, codeEnd: number, dateStart: number, dateEnd: number): boolean {
    const codeLength = codeEnd - codeStart
    const dateLength = dateEnd - dateStart
    if (codeLength > LONGEST_KEY || dateLength > LONGEST_KEY) return false
    const previous = this.#previous
    if (this.#previousCodeLength >= 0) {
      const code = compareBytes(buf, codeStart, codeEnd, previous, 0, this.#previousCodeLength)
      if (code < 0) return false
      if (code === 0) {
        const date = compareBytes(
          buf,
          dateStart,
          dateEnd,
          previous,
          LONGEST_KEY,
          LONGEST_KEY + this.#previousDateLength,
        )
        if (date <= 0) return false
        // same code: only the date changes
        for (let i = 0; i < dateLength; i++) previous[LONGEST_KEY + i] = buf[dateStart + i]!
        this.#previousDateLength = dateLength
        return true
      }
    }
    for (let i = 0; i < codeLength; i++) previous[i] = buf[codeStart + i]!
    this.codes.push(buf.toString('utf8', codeStart, codeEnd))
    for (let i = 0; i < dateLength; i++) previous[LONGEST_KEY + i] = buf[dateStart + i]!
    this.#previousCodeLength = codeLength
    this.#previousDateLength = dateLength
    return true
  }
}

/** a[as..ae) against b[bs..be) byte by byte, the shorter first on a tie: < 0, 0 or > 0. */
function compareBytes(a: Buffer, as: number, ae: number, b: Buffer, bs: number, be: number): number {
  const length = Math.min(ae - as, be - bs)
  for (let i = 0; i < length; i++) {
    const difference = a[as + i]! - b[bs + i]!
    if (difference !== 0) return difference
  }
  return ae - as - (be - bs)
}

/**
 * Field bounds of the line at `start` into `starts`/`ends`: the line feed's index; -1 when the line does not
 * end in `buf`, -2 when it has another number of fields.
 */
function splitFields(buf: Buffer, start: number, starts: Int32Array, ends: Int32Array): number {
  const last = starts.length - 1
  const n = buf.length
  let field = 0
  starts[0] = start
  for (let i = start; i < n; i++) {
    const byte = buf[i]!
    if (byte === NEWLINE) {
      ends[field] = i
      return field === last ? i : -2
    }
    if (byte !== COMMA) continue
    if (field === last) return -2
    ends[field] = i
    starts[++field] = i + 1
  }
  return -1
}
