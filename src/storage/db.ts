import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import Cursor from 'pg-cursor'
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

/**
 * Kysely's cursor for `.stream()` (see paged-read.ts), with our type parsers, and reads and a close that cannot
 * hang.
 * - pg arms its query deadline (`query_timeout`) for a cursor as for any query and disarms it in the query's
 *   callback, which pg-cursor never calls: the timer then kept a finished CLI alive for a minute and fired on a
 *   reused connection. Closing the cursor calls it.
 * - pg-cursor waits for the server's answer and relies on pg to report a lost connection, which pg does only
 *   while the cursor is not done: a connection lost between the last page and the server's ReadyForQuery left
 *   the read waiting for good (the /logic_state requests of a killed store hung, and every later one joined
 *   them). Its close waits for a ReadyForQuery too, after an error as well. Here a read or a close settles when
 *   the connection ends, and a close after an error settles at once: the error ended the implicit transaction
 *   and its portal at the Sync pg-cursor already sent.
 */
class TypedCursor<R> extends Cursor<R> {
  constructor(text: string, values: unknown[]) {
    super(text, values, { types: pgTypes })
  }

  override read(maxRows: number): Promise<R[]>
  override read(maxRows: number, cb: Cursor.ResultCallback<R>): undefined
  override read(maxRows: number, cb?: Cursor.ResultCallback<R>): Promise<R[]> | undefined {
    const rows = this.orConnectionLost(super.read(maxRows), () => {
      throw new Error('Connection terminated unexpectedly')
    })
    if (!cb) return rows
    rows.then(
      (r) => cb(undefined, r, { rows: r } as never),
      (err: Error) => cb(err, [], undefined as never),
    )
    return undefined
  }

  override close(): Promise<void>
  override close(cb: (err: Error) => void): undefined
  override close(cb?: (err: Error) => void): Promise<void> | undefined {
    const closing =
      this.cursorState().state === 'error' ? Promise.resolve() : this.orConnectionLost(super.close(), () => undefined)
    const closed = closing.finally(() => this.finishQuery())
    if (!cb) return closed
    closed.then(() => cb(null as unknown as Error), cb)
    return undefined
  }

  /** `work`, or `lost()` once the connection has ended (at once if it already has). */
  private orConnectionLost<T>(work: Promise<T>, lost: () => T): Promise<T> {
    const { connection } = this.cursorState()
    if (!connection) return work
    return new Promise<T>((resolve, reject) => {
      const gone = () => {
        try {
          resolve(lost())
        } catch (err) {
          reject(err)
        }
      }
      if (connection.stream.destroyed) gone()
      connection.once('end', gone)
      work.then(resolve, reject).finally(() => connection.removeListener('end', gone))
    })
  }

  private cursorState(): { state: string; connection: CursorConnection | null } {
    return this as unknown as { state: string; connection: CursorConnection | null }
  }

  private finishQuery(): void {
    ;(this as { callback?: (err: Error | null) => void }).callback?.(null)
  }
}

/** What the cursor sees of pg's connection (pg's own type leaves it out). */
interface CursorConnection {
  readonly stream: { readonly destroyed: boolean }
  once(event: 'end', listener: () => void): unknown
  removeListener(event: 'end', listener: () => void): unknown
}

/** The dialect of every Kysely over one of our pools: `.stream()` needs the cursor. */
export const postgresDialect = (pool: pg.Pool): PostgresDialect => new PostgresDialect({ pool, cursor: TypedCursor })

export type Db = Kysely<Database>

export interface DbHandle {
  readonly db: Db
  readonly pool: pg.Pool
}

/** Connections a pool opens at most unless told otherwise (the server's pool: see the HTTP descriptor reserve). */
export const DEFAULT_POOL_MAX = 10

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
    max: options.max ?? DEFAULT_POOL_MAX,
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
  const db = new Kysely<Database>({ dialect: postgresDialect(pool) })
  return { db, pool }
}
