import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type pg from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import type { ColumnType } from './array-insert.js'
import { binaryCopyChunks } from './copy-binary.js'

/**
 * Writes rows with one `COPY ... FROM STDIN` on `client` (inside the caller's transaction): a day's 5,000 rows go
 * in COPY's binary format (`binaryCopyChunks`), no per-row statement, no array parameters to escape and unpack and
 * no number formatted as text. Returns the rows written.
 */
export async function copyRows(
  client: pg.ClientBase,
  table: string,
  columns: ReadonlyArray<readonly [name: string, type: ColumnType]>,
  rows: ReadonlyArray<Readonly<Record<string, unknown>>>,
): Promise<number> {
  if (rows.length === 0) return 0
  const names = columns.map(([name]) => client.escapeIdentifier(name)).join(', ')
  const copy = client.query(
    copyFrom(`copy ${client.escapeIdentifier(table)} (${names}) from stdin with (format binary)`),
  )
  await pipeline(Readable.from(binaryCopyChunks(columns, rows)), copy)
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
