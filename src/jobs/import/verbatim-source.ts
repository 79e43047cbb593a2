/**
 * A UTF-8 CSV file as bytes for COPY: its header record, and the bytes after it, checked record by record
 * against what node's row parser accepts (the header's field count; numbers, integers and YYYYMMDD days of its
 * grammar, no blanks around them; required fields not empty) and against anything PostgreSQL's CSV reader
 * would read otherwise than the CsvReader (quotes, CR, backslash). The first record that fails stops the bytes:
 * the file is then staged row by row, which names the line and the reason.
 */
import { TextDecoder } from 'node:util'
import { throwIfAborted } from '../job.js'
import type { Progress } from '../progress.js'
import { openBundleFile } from './bundle-file.js'

const CHUNK_BYTES = 1 << 20

const NEWLINE = 0x0a
const COMMA = 0x2c
const QUOTE = 0x22
const CR = 0x0d
const BACKSLASH = 0x5c
const PLUS = 0x2b
const MINUS = 0x2d
const DOT = 0x2e
const ZERO = 0x30
const NINE = 0x39
const LOWER_E = 0x65
const UPPER_E = 0x45

export type FieldKind = 'number' | 'integer' | 'compact-date' | 'text' | 'ignored'

export interface FieldRule {
  readonly kind: FieldKind
  /** An empty field is refused. */
  readonly required: boolean
}

export interface VerbatimHeader {
  readonly fields: string[]
  /** Byte offset of line 2. */
  readonly dataStart: number
}

/** The header record, when it is line 1 and ends within the first chunk; undefined otherwise. */
export async function readVerbatimHeader(file: string): Promise<VerbatimHeader | undefined> {
  const handle = await openBundleFile(file)
  try {
    const buffer = Buffer.alloc(CHUNK_BYTES)
    const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, 0)
    const end = buffer.subarray(0, bytesRead).indexOf(NEWLINE)
    if (end <= 0) return undefined
    let text: string
    try {
      text = new TextDecoder('utf8', { fatal: true }).decode(buffer.subarray(0, end))
    } catch {
      return undefined
    }
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    if (text.length === 0 || text.includes('\r') || text.includes('"')) return undefined
    return { fields: text.split(','), dataStart: end + 1 }
  } finally {
    await handle.close()
  }
}

export interface VerbatimData {
  readonly chunks: AsyncIterable<Buffer>
  /** False once a record failed the rules; the chunks stop there. */
  plain(): boolean
}

/** The file's bytes from `start`, chunk by chunk, with progress; stops at the first record that is not plain. */
export function verbatimData(
  file: string,
  start: number,
  rules: readonly FieldRule[],
  signal: AbortSignal,
  progress: Progress,
): VerbatimData {
  let plain = true
  async function* chunks(): AsyncGenerator<Buffer> {
    const stream = (await openBundleFile(file)).createReadStream({ start, highWaterMark: CHUNK_BYTES })
    const check = new RecordCheck(rules)
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        throwIfAborted(signal)
        if (!check.push(chunk)) {
          plain = false
          return
        }
        progress.tick(chunk.length)
        yield chunk
      }
      // an abort during the last chunk fails the COPY itself
      throwIfAborted(signal)
      if (!check.end()) plain = false
    } finally {
      stream.destroy()
    }
  }
  return { chunks: chunks(), plain: () => plain }
}

/** Whether records (the bytes after the header, in any chunks) are plain under `rules`. */
export function plainRecords(rules: readonly FieldRule[], chunks: Iterable<Buffer>): boolean {
  const check = new RecordCheck(rules)
  for (const chunk of chunks) if (!check.push(chunk)) return false
  return check.end()
}

/**
 * Number states, after node's `^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$`: where the field's bytes so far
 * leave it. Accepting: INT, INT_DOT, FRACTION, EXP_DIGITS.
 */
const N = {
  START: 0,
  SIGN: 1,
  INT: 2,
  INT_DOT: 3,
  FRACTION: 4,
  LEAD_DOT: 5,
  EXP: 6,
  EXP_SIGN: 7,
  EXP_DIGITS: 8,
  BAD: 9,
} as const
type NumberState = (typeof N)[keyof typeof N]

function numberStep(state: NumberState, byte: number): NumberState {
  const digit = byte >= ZERO && byte <= NINE
  switch (state) {
    case N.START:
      if (digit) return N.INT
      if (byte === PLUS || byte === MINUS) return N.SIGN
      return byte === DOT ? N.LEAD_DOT : N.BAD
    case N.SIGN:
      if (digit) return N.INT
      return byte === DOT ? N.LEAD_DOT : N.BAD
    case N.INT:
      if (digit) return N.INT
      if (byte === DOT) return N.INT_DOT
      return byte === LOWER_E || byte === UPPER_E ? N.EXP : N.BAD
    case N.INT_DOT:
    case N.FRACTION:
      if (digit) return N.FRACTION
      return byte === LOWER_E || byte === UPPER_E ? N.EXP : N.BAD
    case N.LEAD_DOT:
      return digit ? N.FRACTION : N.BAD
    case N.EXP:
      if (digit) return N.EXP_DIGITS
      return byte === PLUS || byte === MINUS ? N.EXP_SIGN : N.BAD
    case N.EXP_SIGN:
    case N.EXP_DIGITS:
      return digit ? N.EXP_DIGITS : N.BAD
    default:
      return N.BAD
  }
}

/** numberStep as a table, (state << 8 | byte) -> state: the check runs on every byte of a big file. */
const NUMBER_STEPS = new Uint8Array(10 << 8)
for (let state = 0; state < 10; state++) {
  for (let byte = 0; byte < 256; byte++) NUMBER_STEPS[(state << 8) | byte] = numberStep(state as NumberState, byte)
}

const numberAccepts = (state: number): boolean =>
  state === N.INT || state === N.INT_DOT || state === N.FRACTION || state === N.EXP_DIGITS

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31
}

const KIND_CODES: Readonly<Record<FieldKind, number>> = {
  number: 0,
  integer: 1,
  'compact-date': 2,
  text: 3,
  ignored: 4,
}

/**
 * Checks records as their bytes arrive, across chunk boundaries. One field's progress: its length, the
 * number state, and for an integer whether it has a digit, for a date its digits so far (YYYYMMDD).
 */
class RecordCheck {
  readonly #rules: readonly FieldRule[]
  readonly #kinds: Uint8Array
  #field = 0
  #length = 0
  #state = 0
  #digits = 0

  constructor(rules: readonly FieldRule[]) {
    this.#rules = rules
    this.#kinds = Uint8Array.from(rules, (r) => KIND_CODES[r.kind])
  }

  push(chunk: Buffer): boolean {
    const kinds = this.#kinds
    const last = kinds.length - 1
    let field = this.#field
    let length = this.#length
    let state = this.#state
    let digits = this.#digits
    let kind = kinds[field]!
    const n = chunk.length
    for (let i = 0; i < n; i++) {
      const byte = chunk[i]!
      if (byte === COMMA || byte === NEWLINE) {
        if (!this.#fieldEnds(field, length, state, digits)) return false
        if (byte === COMMA) {
          if (field === last) return false
          field++
        } else {
          if (field !== last) return false
          field = 0
        }
        kind = kinds[field]!
        length = 0
        state = 0
        digits = 0
        continue
      }
      if (byte === QUOTE || byte === CR || byte === BACKSLASH) return false
      length++
      if (kind === 0) {
        state = NUMBER_STEPS[(state << 8) | byte]!
        if (state === N.BAD) return false
      } else if (kind === 1) {
        if (byte >= ZERO && byte <= NINE) digits = 1
        else if (length !== 1 || (byte !== PLUS && byte !== MINUS)) return false
      } else if (kind === 2) {
        if (byte < ZERO || byte > NINE || length > 8) return false
        digits = digits * 10 + (byte - ZERO)
      }
    }
    this.#field = field
    this.#length = length
    this.#state = state
    this.#digits = digits
    return true
  }

  /** The last record, when the file does not end with a line break. */
  end(): boolean {
    if (this.#field === 0 && this.#length === 0) return true
    const ends = this.#fieldEnds(this.#field, this.#length, this.#state, this.#digits)
    return ends && this.#field === this.#kinds.length - 1
  }

  #fieldEnds(field: number, length: number, state: number, digits: number): boolean {
    const rule = this.#rules[field]!
    // an empty line is one empty field: the CsvReader skips it where COPY would read a row
    if (length === 0) return !rule.required && (field > 0 || this.#kinds.length > 1)
    switch (rule.kind) {
      case 'number':
        return numberAccepts(state)
      case 'integer':
        // more digits than an int4 holds: PostgreSQL and node both refuse, node naming the line
        return digits === 1 && length <= 11
      case 'compact-date': {
        if (length !== 8) return false
        const year = Math.floor(digits / 10_000)
        const month = Math.floor(digits / 100) % 100
        const day = digits % 100
        return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month)
      }
      default:
        return true
    }
  }
}
