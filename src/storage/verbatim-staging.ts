/**
 * A file's rows staged without converting them in node: the file's bytes go to PostgreSQL's own CSV reader,
 * COPY fills the same typed staging table import-staging.ts makes (each row numbered by its line, numbers in
 * units by a generated column), the ranges and row checks are asked in one scan, and only the distinct values
 * of text columns (a few thousand codes) go through node's converters.
 *
 * The caller streams only bytes it has checked field by field against the grammar node accepts (see
 * jobs/import/verbatim-source.ts). Anything else (a value out of range, a code node would write otherwise, a
 * value PostgreSQL refuses) rolls back to the savepoint and the caller stages the file row by row, which names
 * the file, line and reason as always.
 */
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type pg from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import type { ColumnSpec, RowCheck } from './csv-formats.js'
import { type Cell, LOAD_TIMEOUT_MS, type Staging } from './import-staging.js'

export interface VerbatimFile {
  /** The table the typed staging is named after (`import_<table>`, as createStaging names it). */
  readonly table: string
  /** The typed staging table's columns (the file's row plan). */
  readonly columns: readonly ColumnSpec[]
  /** For each field of a record, in file order: the column it fills, or null for a field the format ignores. */
  readonly fields: readonly (number | null)[]
  /** Per column: the power of ten a number's unit factor shifts it by (0: none). */
  readonly shifts: readonly number[]
  readonly checks: readonly RowCheck[]
  /** The records, as CSV bytes after the header line (line 2 on). */
  readonly data: AsyncIterable<Buffer>
  /** After `data` ended: whether every record held the fields node accepts, in bytes COPY reads alike. */
  readonly plain: () => boolean
  /** Cells of text column `column` for distinct raw values, as node makes them; undefined for a refused value. */
  readonly convert: (column: number, raws: readonly string[]) => (Cell | undefined)[]
}

export type VerbatimOutcome =
  | { readonly staged: true; readonly staging: Staging; readonly rows: number }
  | { readonly staged: false; readonly why: string }

/** Column kinds COPY reads exactly as node does, given bytes of node's grammar. */
const COPY_TYPES: Readonly<Partial<Record<ColumnSpec['type'], string>>> = {
  text: 'text',
  date: 'date',
  number: 'double precision',
  integer: 'integer',
}

const ident = (name: string): string => `"${name.replaceAll('"', '""')}"`
const long = (text: string): pg.QueryConfig => Object.assign({ text }, { query_timeout: LOAD_TIMEOUT_MS })

/** PostgreSQL's data exceptions (class 22): a value COPY or a cast refuses. */
export const isDataError = (err: unknown): boolean => /^22/.test((err as { code?: string }).code ?? '')

/** Why `file` cannot be staged by COPY whatever its bytes, or undefined. */
export function verbatimBlocker(
  columns: readonly ColumnSpec[],
  fields: readonly (number | null)[],
): string | undefined {
  for (const [index, column] of columns.entries()) {
    if (!COPY_TYPES[column.type]) return `${column.type} column ${column.name}`
    if (column.default !== undefined) return `column ${column.name} has a default`
    if (!fields.includes(index)) return `column ${column.name} is not in the file`
  }
  return undefined
}

/** Stages `file`, or says why it did not (the transaction then stands as before the call). */
export async function stageVerbatim(client: pg.PoolClient, file: VerbatimFile): Promise<VerbatimOutcome> {
  const blocker = verbatimBlocker(file.columns, file.fields)
  if (blocker) return { staged: false, why: blocker }
  await client.query('savepoint verbatim_stage')
  try {
    const outcome = await stageInSavepoint(client, file)
    await client.query(outcome.staged ? 'release savepoint verbatim_stage' : 'rollback to savepoint verbatim_stage')
    return outcome
  } catch (err) {
    if (!isDataError(err)) throw err
    await client.query('rollback to savepoint verbatim_stage')
    return { staged: false, why: `PostgreSQL refused a value: ${(err as Error).message}` }
  }
}

async function stageInSavepoint(client: pg.PoolClient, file: VerbatimFile): Promise<VerbatimOutcome> {
  const name = `import_${file.table}`
  const fieldColumn = (index: number | null, i: number): string => {
    if (index === null) return `f${i}`
    const column = file.columns[index]!
    return column.type === 'number' && file.shifts[index] !== 0 ? `${column.name}__file` : column.name
  }
  const definitions = ['line integer generated always as identity (start 2 cache 10000)']
  for (const [i, index] of file.fields.entries()) {
    if (index === null) {
      definitions.push(`f${i} text`)
      continue
    }
    const column = file.columns[index]!
    const shift = file.shifts[index]!
    if (column.type === 'number' && shift !== 0) {
      // node's text for such a number is the file's with the exponent (`1234.5e2`); a file value with an exponent
      // of its own (rare) makes the cast fail, and node stages the file
      const raw = ident(`${column.name}__file`)
      definitions.push(`${raw} text`)
      definitions.push(
        `${ident(column.name)} double precision generated always as ((${raw} || 'e${shift}')::double precision) stored`,
      )
    } else {
      definitions.push(`${ident(column.name)} ${COPY_TYPES[column.type]}`)
    }
  }
  await client.query(`create temp table ${ident(name)} (${definitions.join(', ')}) on commit drop`)
  const copied = file.fields.map((index, i) => ident(fieldColumn(index, i))).join(', ')
  const copy = copyFrom(`copy ${ident(name)} (${copied}) from stdin (format csv)`)
  Object.assign(copy, { query_timeout: LOAD_TIMEOUT_MS })
  const stream = client.query(copy)
  await pipeline(Readable.from(file.data, { objectMode: false }), stream)
  if (!file.plain()) return { staged: false, why: 'a record that is not plain fields of the grammar node accepts' }
  const rows = stream.rowCount

  const conditions = rowConditions(file.columns, file.checks)
  // the rows are checked in the same scan that gathers the first text column's values
  let rowsChecked = conditions.length === 0
  for (const [index, column] of file.columns.entries()) {
    if (column.type !== 'text') continue
    const { values, fine } = await distinctValues(client, name, column.name, rowsChecked ? [] : conditions)
    if (!fine) return { staged: false, why: 'a value out of range or a row check' }
    rowsChecked = true
    if (!values || !asNodeWrites(file, index, values)) {
      return { staged: false, why: `a value of ${column.name} node writes otherwise or refuses, or too many` }
    }
  }
  if (!rowsChecked) {
    const bad = await client.query(long(`select 1 from ${ident(name)} where not (${conditions.join(' and ')}) limit 1`))
    if (bad.rowCount !== 0) return { staged: false, why: 'a value out of range or a row check' }
  }
  return { staged: true, staging: { name, columns: file.columns }, rows }
}

/** What every row of `columns` must meet (required, ranges, high not below low), as SQL conditions. */
export function rowConditions(columns: readonly ColumnSpec[], checks: readonly RowCheck[]): string[] {
  const conditions: string[] = []
  for (const column of columns) {
    const value = ident(column.name)
    if (!column.nullable) conditions.push(`${value} is not null`)
    const { min, max } = column
    if (min !== undefined) conditions.push(`(${value} < ${min}) is not true`)
    if (max !== undefined) conditions.push(`(${value} > ${max}) is not true`)
  }
  if (checks.includes('high_not_below_low') && columns.some((c) => c.name === 'high')) {
    if (columns.some((c) => c.name === 'low')) conditions.push('(high < low) is not true')
  }
  return conditions
}

/** Distinct values of a text column node is asked about; a file with more is staged row by row (memory stays flat). */
const MAX_DISTINCT = 100_000

/**
 * The distinct values of text column `column` (undefined when there are too many to ask node about) and whether
 * every row meets `conditions`.
 */
async function distinctValues(
  client: pg.PoolClient,
  table: string,
  column: string,
  conditions: readonly string[],
): Promise<{ values: string[] | undefined; fine: boolean }> {
  const fine = conditions.length === 0 ? 'true' : `bool_and(${conditions.join(' and ')})`
  const { rows } = await client.query<{ v: string | null; fine: boolean }>(
    long(`select ${ident(column)} as v, ${fine} as fine from ${ident(table)} group by 1 limit ${MAX_DISTINCT + 1}`),
  )
  const values = rows.flatMap((r) => (r.v === null ? [] : [r.v]))
  return { values: values.length > MAX_DISTINCT ? undefined : values, fine: rows.every((r) => r.fine) }
}

/** Whether node writes every one of `raws` (distinct values of text column `index`) as it stands in the file. */
export function asNodeWrites(file: Pick<VerbatimFile, 'convert'>, index: number, raws: readonly string[]): boolean {
  const cells = file.convert(index, raws)
  return raws.every((raw, i) => cells[i] === raw)
}
