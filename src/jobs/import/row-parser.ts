/**
 * Pure validation and conversion of CSV rows against a FileSpec: the header picks the columns, each row
 * becomes canonical PostgreSQL text cells (ISO dates, decimal numbers with units applied, `t`/`f`,
 * canonical codes) or a RowError whose message is the reason shown after `file:line:`.
 */
import { shownText } from '../../datasource/tushare/shown-text.js'
import { type Board, type Exchange, type ParsedCode, parseCode, parseTsCode } from '../../domain/codes.js'
import { type ColumnSpec, type FileSpec, sourceOf } from '../../storage/csv-formats.js'
import type { Cell } from '../../storage/import-staging.js'

/**
 * A value from the file as it may go into an error message (and from there a run log or a terminal): a file, or a
 * tushare answer synced through this parser, can hold a cell of megabytes or with control characters.
 */
const shown = (raw: unknown): string => shownText(raw, 40)

/** A code's refusal, which quotes the code as it came, with the code shown as above. */
const codeRefusal = (input: string, reason: string): string =>
  input === '' ? reason : reason.replaceAll(input, shown(input))

export class RowError extends Error {
  override name = 'RowError'
}

export interface RowPlan {
  readonly spec: FileSpec
  /** The table columns this file loads, in cell order. */
  readonly columns: readonly ColumnSpec[]
  /** Fields every record must have (the header's width). */
  readonly width: number
  /** The row's cells, or null for a row the spec skips; throws RowError for a bad row. */
  parse(fields: readonly string[]): Cell[] | null
  /**
   * The cell `parse` makes of field `raw` for `columns[index]`, on its own; throws RowError for a bad value.
   * Not for a column derived from the row's code (exchange, board), which needs the whole row.
   */
  cell(index: number, raw: string): Cell
}

type Convert = (raw: string) => string

interface Slot {
  readonly column: ColumnSpec
  /** Field index in the record; -1 when the header lacks the column (derived columns only). */
  readonly index: number
  readonly convert: Convert
}

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/
/** Distinct values kept by a memoised converter before it starts over. */
const MEMO_LIMIT = 65_536
const INTEGER = /^[+-]?\d+$/
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const COMPACT_DATE = /^(\d{4})(\d{2})(\d{2})$/
const INDEX_SUFFIX = /^(\d{6})\.(SH|SZ)$/
const INDEX_PREFIX = /^(SH|SZ)\.?(\d{6})$/
const INT4_MAX = 2_147_483_647

function fail(reason: string): never {
  throw new RowError(reason)
}

function quoted(columns: Iterable<string>): string {
  return [...columns].map((c) => `"${c}"`).join(', ')
}

const PLAIN_IDENTIFIER = /^[a-z_][a-z0-9_]{0,63}$/

/**
 * Header cells the spec does not know, as an error shows them: a plain identifier by name, anything else only by
 * its position. A file's first line may be anything at all (a secret, a stranger's text): it is never echoed.
 */
function shownUnknown(names: readonly string[], unknown: (name: string) => boolean): string {
  return names
    .map((name, i) => ({ name, i }))
    .filter(({ name }) => unknown(name))
    .map(({ name, i }) => (PLAIN_IDENTIFIER.test(name) ? `"${name}"` : `column ${i + 1} (not a plain name)`))
    .join(', ')
}

/** The power of ten a factor is, so units shift the decimal exponent instead of rounding through a float. */
function exponentOf(factor: number): number | undefined {
  const exponent = Math.round(Math.log10(factor))
  return 10 ** exponent === factor ? exponent : undefined
}

/** `1234.56` x 10^2 -> `1234.56e2`: PostgreSQL reads the exact decimal, no binary rounding on our side. */
function shiftDecimal(text: string, exponent: number): string {
  const e = text.search(/[eE]/)
  if (e < 0) return `${text}e${exponent}`
  return `${text.slice(0, e)}e${Number(text.slice(e + 1)) + exponent}`
}

/**
 * Caches a pure converter: a bars file repeats a few thousand codes and a few hundred dates a million times.
 * Throwing calls are not cached.
 */
function memo<T>(convert: (raw: string) => T): (raw: string) => T {
  const cache = new Map<string, T>()
  return (raw) => {
    let value = cache.get(raw)
    if (value === undefined) {
      value = convert(raw)
      if (cache.size >= MEMO_LIMIT) cache.clear()
      cache.set(raw, value)
    }
    return value
  }
}

function describeRange(column: ColumnSpec): string {
  const { min, max } = column
  if (min !== undefined && max !== undefined) return `outside ${min}..${max}`
  if (min === 0) return 'negative'
  if (min !== undefined) return `below ${min}`
  return `above ${max}`
}

/** The power of ten a number column's unit factor shifts its values by: 0 without a factor, undefined when it is none. */
export function decimalShift(column: ColumnSpec): number | undefined {
  const { factor } = column
  return factor === undefined || factor === 1 ? 0 : exponentOf(factor)
}

function numberConverter(column: ColumnSpec, label: string): Convert {
  const { factor, min, max } = column
  const exponent = decimalShift(column)
  return (raw) => {
    if (!NUMBER.test(raw)) fail(`${label} "${shown(raw)}" is not a number`)
    let text = raw
    if (exponent === undefined) text = String(Number(raw) * factor!)
    else if (exponent !== 0) text = shiftDecimal(raw, exponent)
    const value = Number(text)
    if (!Number.isFinite(value)) fail(`${label} "${shown(raw)}" is not a finite number`)
    if ((min !== undefined && value < min) || (max !== undefined && value > max)) {
      fail(`${label} ${shown(raw)} is ${describeRange(column)}`)
    }
    return text
  }
}

function integerConverter(column: ColumnSpec, label: string): Convert {
  const { min, max } = column
  return (raw) => {
    if (!INTEGER.test(raw)) fail(`${label} "${shown(raw)}" is not an integer`)
    const value = Number(raw)
    if (Math.abs(value) > INT4_MAX) fail(`${label} ${shown(raw)} is too large`)
    if ((min !== undefined && value < min) || (max !== undefined && value > max)) {
      fail(`${label} ${shown(raw)} is ${describeRange(column)}`)
    }
    return String(value)
  }
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31
}

function dateConverter(column: ColumnSpec, label: string): Convert {
  const compact = column.dateFormat === 'compact'
  const pattern = compact ? COMPACT_DATE : ISO_DATE
  const layout = compact ? 'YYYYMMDD' : 'YYYY-MM-DD'
  return memo((raw) => {
    const match = pattern.exec(raw)
    if (!match) fail(`${label} "${shown(raw)}" is not a date (${layout})`)
    const year = Number(match[1])
    const month = Number(match[2])
    const day = Number(match[3])
    if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
      fail(`${label} "${shown(raw)}" is not a real date`)
    }
    return compact ? `${match[1]}-${match[2]}-${match[3]}` : raw
  })
}

function booleanConverter(label: string): Convert {
  return (raw) => {
    switch (raw.toLowerCase()) {
      case 'true':
      case '1':
        return 't'
      case 'false':
      case '0':
        return 'f'
      default:
        return fail(`${label} "${shown(raw)}" is not a boolean (true, false, 1 or 0)`)
    }
  }
}

function indexCodeConverter(): Convert {
  return memo((raw) => {
    const text = raw.toUpperCase()
    const suffix = INDEX_SUFFIX.exec(text)
    if (suffix) return text
    const prefix = INDEX_PREFIX.exec(text)
    if (prefix) return `${prefix[2]}.${prefix[1]}`
    return fail(`"${shown(raw)}" is not an index code: use 6 digits with .SH or .SZ, e.g. 000300.SH`)
  })
}

/**
 * Checks the header against the spec and returns the row converter. Throws RowError naming unknown,
 * missing or repeated columns.
 */
export function planRows(spec: FileSpec, header: readonly string[]): RowPlan {
  const names = header.map((name) => name.trim().toLowerCase())
  const bySource = new Map<string, ColumnSpec>()
  for (const column of spec.columns) {
    const source = sourceOf(column)
    if (source !== null) bySource.set(source, column)
  }
  const known = names.filter((name) => bySource.has(name))
  const repeated = new Set(known.filter((name, i) => known.indexOf(name) !== i))
  if (repeated.size > 0) fail(`repeated column ${quoted(repeated)}`)
  if (spec.unknownColumns === 'error') {
    const unknown = names.filter((name) => !bySource.has(name))
    if (unknown.length > 0) {
      const expected = [...bySource.keys()].join(', ')
      const shown = shownUnknown(names, (name) => !bySource.has(name))
      fail(`unknown column${unknown.length > 1 ? 's' : ''} ${shown}; ${spec.file} takes ${expected}`)
    }
  }
  const missing = spec.columns.filter((c) => c.required && !names.includes(sourceOf(c) ?? ''))
  if (missing.length > 0) {
    fail(`missing column${missing.length > 1 ? 's' : ''} ${quoted(missing.map((c) => sourceOf(c) ?? c.name))}`)
  }

  // The stock code a derived column (exchange, board) is checked against, set by the code slot of the row.
  let rowCode: ParsedCode | undefined
  const slots: Slot[] = []
  for (const column of spec.columns) {
    const source = sourceOf(column)
    const index = source === null ? -1 : names.indexOf(source)
    // a key column with a default (theme edges' valid_from) is always loaded, so the upsert can match on it
    const defaultedKey = column.default !== undefined && spec.primaryKey.includes(column.name)
    if (index < 0 && column.derive === undefined && !defaultedKey) continue
    const label = source ?? column.name
    slots.push({ column, index, convert: converterFor(column, label, () => rowCode) })
  }
  const stockSlot = slots.find((s) => s.column.code === 'stock' || s.column.code === 'ts_code')
  const parseStock = memo(stockSlot?.column.code === 'ts_code' ? parseTsCode : parseCode)
  const skipIndex = spec.skipRows ? names.indexOf(spec.skipRows.column) : -1
  const skipValue = spec.skipRows?.value
  const columns = slots.map((s) => s.column)
  const high = columns.findIndex((c) => c.name === 'high')
  const low = columns.findIndex((c) => c.name === 'low')
  const checkBars = spec.checks.includes('high_not_below_low') && high >= 0 && low >= 0
  const width = names.length

  return {
    spec,
    columns,
    width,
    parse(fields) {
      if (fields.length !== width) fail(`expected ${width} fields as in the header, found ${fields.length}`)
      if (skipIndex >= 0 && fields[skipIndex]!.trim() === skipValue) return null
      rowCode = undefined
      if (stockSlot) {
        const input = fields[stockSlot.index]!
        const parsed = parseStock(input)
        if (!parsed.ok) fail(codeRefusal(input, parsed.reason))
        rowCode = parsed
      }
      const cells: Cell[] = new Array(slots.length)
      for (let i = 0; i < slots.length; i++) {
        const slot = slots[i]!
        const raw = slot.index < 0 ? '' : fields[slot.index]!.trim()
        if (raw === '' && slot.column.derive === undefined) {
          const { column } = slot
          if (column.nullable) cells[i] = null
          else if (column.default !== undefined) cells[i] = column.default
          else fail(`${sourceOf(column) ?? column.name} is empty`)
        } else {
          cells[i] = slot.convert(raw)
        }
      }
      if (checkBars && Number(cells[high]) < Number(cells[low])) {
        fail(`high ${shown(cells[high])} is below low ${shown(cells[low])}`)
      }
      return cells
    },
    cell(index, raw) {
      const slot = slots[index]
      if (!slot || slot.column.derive !== undefined) throw new Error(`column ${index} cannot be read on its own`)
      if (slot === stockSlot) {
        const parsed = parseStock(raw)
        if (!parsed.ok) fail(codeRefusal(raw, parsed.reason))
        return parsed.code
      }
      const text = raw.trim()
      if (text !== '') return slot.convert(text)
      const { column } = slot
      if (column.nullable) return null
      if (column.default !== undefined) return column.default
      return fail(`${sourceOf(column) ?? column.name} is empty`)
    },
  }
}

function converterFor(column: ColumnSpec, label: string, code: () => ParsedCode | undefined): Convert {
  if (column.derive !== undefined) return derivedConverter(column, label, code)
  if (column.code === 'stock' || column.code === 'ts_code') return () => code()!.code
  if (column.code === 'index') return indexCodeConverter()
  switch (column.type) {
    case 'number':
      return numberConverter(column, label)
    case 'integer':
      return integerConverter(column, label)
    case 'date':
      return dateConverter(column, label)
    case 'boolean':
      return booleanConverter(label)
    case 'text': {
      const values = column.values
      const oneOf = column.oneOf
      const mapped: Convert = values ? (raw) => values[raw] ?? raw : (raw) => raw
      if (!oneOf) return mapped
      return (raw) => {
        const value = mapped(raw)
        if (!oneOf.includes(value)) fail(`${label} "${shown(raw)}" is not one of ${oneOf.join(', ')}`)
        return value
      }
    }
  }
}

/** exchange / board: taken from the code when empty, and must agree with it when given. */
function derivedConverter(column: ColumnSpec, label: string, code: () => ParsedCode | undefined): Convert {
  const isExchange = column.derive === 'exchange'
  const values = column.values
  return (raw) => {
    const parsed = code()
    if (!parsed) return fail(`${label} needs a stock code in the same row`)
    const expected: Exchange | Board = isExchange ? parsed.exchange : parsed.board
    if (raw === '') return expected
    const mapped = values?.[raw.toUpperCase()] ?? raw
    const given = isExchange ? mapped.toUpperCase() : mapped.toLowerCase()
    if (given !== expected) fail(`${label} "${shown(raw)}" does not match code ${parsed.code} (${expected})`)
    return given
  }
}
