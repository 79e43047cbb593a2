import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import type { Logger } from '../logger.js'
import type { Database } from './schema.js'

// DATE stays an ISO string (no time-zone shifts); int8 and numeric become numbers (our values fit). Given to each
// pool we make, never set on pg's process-wide defaults, so importing this module changes nothing elsewhere.
const PARSERS = new Map<number, (value: string) => unknown>([
  [pg.types.builtins.DATE, (value) => value],
  [pg.types.builtins.INT8, (value) => Number(value)],
  [pg.types.builtins.NUMERIC, (value) => Number(value)],
])
export const pgTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    PARSERS.get(oid) ?? pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
}

export type Db = Kysely<Database>

export interface DbHandle {
  readonly db: Db
  readonly pool: pg.Pool
}

/** A pool that fails fast when the server is unreachable, so requests answer instead of hanging. */
export function createDb(url: string, log: Logger, options: { max?: number } = {}): DbHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30_000,
    query_timeout: 120_000,
    types: pgTypes,
  })
  // An idle client losing its server emits here; without a listener the process would crash.
  pool.on('error', (err) => log.warn({ err: { message: err.message } }, 'postgres idle client error'))
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  return { db, pool }
}
