import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type pg from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import type { ColumnType } from './array-insert.js'

const ROWS_PER_CHUNK = 500
const NEEDS_ESCAPE = /[\\\t\n\r]/
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' }

/** One value in COPY's text format: `\N` for null, backslash escapes for the four characters that need them. */
function field(value: unknown, type: ColumnType): string {
  if (value === null || value === undefined) return '\\N'
  if (type === 'bool') return value ? 't' : 'f'
  // a number's text never holds a character COPY escapes
  if (typeof value === 'number') return String(value)
  const text = type === 'jsonb' && typeof value !== 'string' ? JSON.stringify(value) : String(value)
  return NEEDS_ESCAPE.test(text) ? text.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!) : text
}

function* chunks(
  columns: ReadonlyArray<readonly [string, ColumnType]>,
  rows: ReadonlyArray<Readonly<Record<string, unknown>>>,
): Generator<string> {
  let chunk = ''
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!
    let line = ''
    for (let c = 0; c < columns.length; c++) {
      const [name, type] = columns[c]!
      line += (c === 0 ? '' : '\t') + field(row[name], type)
    }
    chunk += `${line}\n`
    if ((i + 1) % ROWS_PER_CHUNK === 0) {
      yield chunk
      chunk = ''
    }
  }
  if (chunk) yield chunk
}

/**
 * Writes rows with one `COPY ... FROM STDIN` on `client` (inside the caller's transaction): a day's 5,000 rows go
 * as text lines, which PostgreSQL parses with each column's own input function, no per-row statement and no
 * array parameters to escape and unpack. Returns the rows written.
 */
export async function copyRows(
  client: pg.ClientBase,
  table: string,
  columns: ReadonlyArray<readonly [name: string, type: ColumnType]>,
  rows: ReadonlyArray<Readonly<Record<string, unknown>>>,
): Promise<number> {
  if (rows.length === 0) return 0
  const names = columns.map(([name]) => client.escapeIdentifier(name)).join(', ')
  const copy = client.query(copyFrom(`copy ${client.escapeIdentifier(table)} (${names}) from stdin`))
  await pipeline(Readable.from(chunks(columns, rows)), copy)
  return copy.rowCount
}

/** Runs `work` in one transaction on a client of its own: committed when it resolves, rolled back when it throws. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect()
  let broken = false
  try {
    await client.query('begin')
    const result = await work(client)
    await client.query('commit')
    return result
  } catch (error) {
    // a client that cannot even roll back (its connection died) is destroyed, not handed to the next caller
    await client.query('rollback').catch(() => {
      broken = true
    })
    throw error
  } finally {
    client.release(broken)
  }
}
