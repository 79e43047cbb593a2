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

export interface DbOptions {
  readonly max?: number
  /** Longest a statement may run: the server cancels it, and the client gives up shortly after. */
  readonly statementTimeoutMs?: number
  /** Longest a caller waits for a pooled connection (a free slot or a new connection). */
  readonly acquireTimeoutMs?: number
}

/** Statement deadline of the HTTP server's pool: the plan's consumer gives up at 60 s anyway. */
export const SERVER_STATEMENT_TIMEOUT_MS = 60_000

/**
 * A pool that fails fast when the server is unreachable, so requests answer instead of hanging. Every client,
 * idle or checked out, has an `error` listener: a connection the server ends (postmaster killed, fast shutdown,
 * pg_terminate_backend) fails its query and is discarded, and never crashes the process.
 */
export function createDb(url: string, log: Logger, options: DbOptions = {}): DbHandle {
  const statementTimeoutMs = options.statementTimeoutMs ?? 120_000
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.acquireTimeoutMs ?? 3000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    statement_timeout: statementTimeoutMs,
    // the server-side timeout cannot fire on a frozen (stopped) server: the client gives up on its own
    query_timeout: statementTimeoutMs + 1000,
    types: pgTypes,
  })
  // an idle client's error reaches its own listener below too: logged there once
  pool.on('error', (err) => log.debug({ err: { message: err.message } }, 'postgres idle client error'))
  pool.on('connect', (client) => {
    client.on('error', (err) =>
      log.warn({ err: { message: err.message, code: (err as { code?: string }).code } }, 'postgres connection lost'),
    )
  })
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  return { db, pool }
}
