/**
 * A first load of daily_bars straight from the files: into an empty daily_bars, with no ST history stored (every
 * bar's is_st is false until the bundle's own ST history is merged and refreshes it), the bundle's bars and
 * their factors (zipped line by line in node, see jobs/import/bars-by-copy.ts) go in by
 * one COPY, without the table's indexes, which are built once the rows are in. No staging table, no join, no
 * second write of the rows. COPY checks each row as it writes it (required fields, ranges, high not below low,
 * as a constraint for the load's duration), and node's converter judges the distinct codes node gathered.
 *
 * Anything else (a store with bars or ST periods, a record that is not plain or not zipped, a row the checks
 * refuse, a value PostgreSQL refuses) rolls back to the savepoint and the caller stages the files, whose checks
 * name the file, line and reason as always.
 */
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type pg from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import type { ColumnSpec, RowCheck } from './csv-formats.js'
import { type Cell, LOAD_TIMEOUT_MS } from './import-staging.js'
import { asNodeWrites, isDataError, rowConditions } from './verbatim-staging.js'

export interface BarsFile {
  /** daily_bars columns in the order of each record's fields. */
  readonly columns: readonly ColumnSpec[]
  readonly checks: readonly RowCheck[]
  /** The records, as CSV bytes. */
  readonly data: AsyncIterable<Buffer>
  /** After `data` ended: whether every record was plain and had its factor, in key order. */
  readonly whole: () => boolean
  /** After `data` ended: the distinct codes of the records. */
  readonly codes: () => readonly string[]
  /** Cells of text column `column` for distinct raw values, as node makes them; undefined for a refused value. */
  readonly convert: (column: number, raws: readonly string[]) => (Cell | undefined)[]
}

export type BarsOutcome =
  | {
      readonly loaded: true
      readonly rows: number
      /** Milliseconds of each step: the COPY (with node's reading), the check scan, the index builds. */
      readonly ms: { readonly copy: number; readonly check: number; readonly indexes: number }
    }
  | { readonly loaded: false; readonly why: string }

const ident = (name: string): string => `"${name.replaceAll('"', '""')}"`
/** The row checks' constraint while the COPY runs. */
const CHECK = 'daily_bars_by_copy_check'
const long = (text: string): pg.QueryConfig => Object.assign({ text }, { query_timeout: LOAD_TIMEOUT_MS })

/** A unique or not-null violation (class 23) or a data exception (class 22): the rows are not what node takes. */
const refused = (err: unknown): boolean => isDataError(err) || /^23/.test((err as { code?: string }).code ?? '')

/** Loads `file` into the empty daily_bars, or says why not (the transaction then stands as before the call). */
export async function loadBarsByCopy(client: pg.PoolClient, file: BarsFile): Promise<BarsOutcome> {
  await client.query('savepoint bars_by_copy')
  try {
    const outcome = await loadInSavepoint(client, file)
    await client.query(outcome.loaded ? 'release savepoint bars_by_copy' : 'rollback to savepoint bars_by_copy')
    return outcome
  } catch (err) {
    if (!refused(err)) throw err
    await client.query('rollback to savepoint bars_by_copy')
    return { loaded: false, why: `PostgreSQL refused a row: ${(err as Error).message}` }
  }
}

async function loadInSavepoint(client: pg.PoolClient, file: BarsFile): Promise<BarsOutcome> {
  const code = file.columns.findIndex((c) => c.name === 'code')
  if (file.columns.some((c, i) => c.type === 'text' && i !== code)) return { loaded: false, why: 'a text column' }
  // asked before the lock too, so that a store with bars never waits for its readers here
  if (!(await loadable(client))) return { loaded: false, why: 'the store holds bars or ST periods' }
  await client.query('lock table daily_bars in access exclusive mode')
  if (!(await loadable(client))) return { loaded: false, why: 'the store holds bars or ST periods' }
  // the index builds sort 2 M keys: in the default 64 MB they spill to disk (the merge sets the same)
  await client.query(`set local maintenance_work_mem = '256MB'`)
  const rebuild = await dropBarIndexes(client)
  // the row checks as a constraint COPY applies to each row it writes (no scan afterwards); dropped once done
  const conditions = rowConditions(file.columns, file.checks)
  if (conditions.length > 0) {
    await client.query(`alter table daily_bars add constraint ${CHECK} check (${conditions.join(' and ')}) not valid`)
  }
  const copy = copyFrom(
    `copy daily_bars (${file.columns.map((c) => ident(c.name)).join(', ')}) from stdin (format csv)`,
  )
  Object.assign(copy, { query_timeout: LOAD_TIMEOUT_MS })
  const stream = client.query(copy)
  const started = performance.now()
  await pipeline(Readable.from(file.data, { objectMode: false }), stream)
  const copied = performance.now()
  if (!file.whole()) {
    return { loaded: false, why: 'a record that is not plain, not in key order, or without its factor' }
  }
  if (conditions.length > 0) await client.query(`alter table daily_bars drop constraint ${CHECK}`)
  if (!asNodeWrites(file, code, file.codes())) {
    return { loaded: false, why: 'a code node writes otherwise or refuses' }
  }
  const checked = performance.now()
  for (const create of rebuild) await client.query(long(create))
  const done = performance.now()
  const ms = {
    copy: Math.round(copied - started),
    check: Math.round(checked - copied),
    indexes: Math.round(done - checked),
  }
  return { loaded: true, rows: stream.rowCount, ms }
}

/** Whether daily_bars is empty and unreferenced, and no ST period is stored (every bar's is_st is false). */
async function loadable(client: pg.PoolClient): Promise<boolean> {
  const { rows } = await client.query<{ fits: boolean }>(
    `select not exists (select from daily_bars)
        and not exists (select from pg_constraint where confrelid = 'daily_bars'::regclass)
        and not exists (select from st_periods) as fits`,
  )
  return rows[0]?.fits ?? false
}

/**
 * Drops daily_bars' indexes and constraints on them (the caller holds the table locked); the statements that
 * build them again, to run once the rows are in (a sort and one pass instead of millions of index insertions).
 */
export async function dropBarIndexes(client: pg.PoolClient): Promise<string[]> {
  const { rows: indexes } = await client.query<{ drop: string; create: string }>(
    `select case when c.conname is null then format('drop index %s', i.indexrelid::regclass)
                 else format('alter table daily_bars drop constraint %I', c.conname) end as drop,
            case when c.conname is null then pg_get_indexdef(i.indexrelid)
                 else format('alter table daily_bars add constraint %I %s', c.conname, pg_get_constraintdef(c.oid))
            end as create
     from pg_index i left join pg_constraint c on c.conindid = i.indexrelid and c.conrelid = i.indrelid
     where i.indrelid = 'daily_bars'::regclass`,
  )
  for (const index of indexes) await client.query(index.drop)
  return indexes.map((index) => index.create)
}
