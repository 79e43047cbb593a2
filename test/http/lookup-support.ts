import { Kysely } from 'kysely'
import { type DbHandle, postgresDialect } from '../../src/storage/db.js'
import type { Database } from '../../src/storage/schema.js'

export interface CountingStore extends DbHandle {
  /** SQL of every query since the last `reset()`. */
  readonly queries: string[]
  reset(): void
  /** How many of the recorded queries read each table. */
  perTable(): Record<string, number>
}

/** Words after `from` / `join` that are not tables: a CTE, a set-returning function, `join lateral`. */
const NOT_TABLES = new Set(['dates', 'unnest', 'lateral'])

/** The test database's pool behind a Kysely that records every query (never destroy it: the pool is shared). */
export function countingStore(handle: DbHandle): CountingStore {
  const queries: string[] = []
  const db = new Kysely<Database>({
    dialect: postgresDialect(handle.pool),
    log: (event) => {
      if (event.level === 'query') queries.push(event.query.sql)
    },
  })
  return {
    db,
    pool: handle.pool,
    queries,
    reset: () => {
      queries.length = 0
    },
    perTable() {
      const counts: Record<string, number> = {}
      for (const q of queries) {
        const tables = new Set([...q.matchAll(/\b(?:from|join)\s+"?([a-z_]+)"?/gi)].map((m) => m[1]!.toLowerCase()))
        for (const table of tables) if (!NOT_TABLES.has(table)) counts[table] = (counts[table] ?? 0) + 1
      }
      return counts
    },
  }
}

/** A database URL nobody listens on (port 1 of the loopback). */
export const DEAD_DATABASE_URL = 'postgres://stockplan:nothing@127.0.0.1:1/stockplan'
