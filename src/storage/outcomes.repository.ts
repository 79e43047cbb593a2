import { sql } from 'kysely'
import type pg from 'pg'
import type { EntryBar, ExitBar, Outcome } from '../domain/outcomes.js'
import { type ColumnType, insertColumns } from './array-insert.js'
import { copyRows, inTransaction } from './copy-rows.js'
import type { Db } from './db.js'
import type { IsoDate } from './schema.js'

export interface EntryBarRow {
  readonly code: string
  readonly open: number
  readonly adj_factor: number
  readonly is_suspended: boolean
  readonly pre_close: number | null
  readonly is_st: boolean
  readonly board: string | null
  readonly list_date: IsoDate | null
}

const OUTCOME_COLUMNS: ReadonlyArray<readonly [string, ColumnType]> = [
  ['trade_date', 'date'],
  ['horizon', 'int4'],
  ['code', 'text'],
  ['entry_date', 'date'],
  ['exit_date', 'date'],
  ['tradable', 'bool'],
  ['reason', 'text'],
  ['ret', 'float8'],
  ['benchmark', 'text'],
  ['bench_ret', 'float8'],
  ['universe_ret', 'float8'],
  ['excess', 'float8'],
  ['regime', 'text'],
]

const UNIQUE_VIOLATION = '23505'

/**
 * Reads and writes `plan_outcomes`; rows are inserted once and never updated. With a pool, a day's rows go by one
 * `COPY` (a tenth of the unnest insert's cost on the server and none of its array escaping here).
 */
export function createOutcomesRepository(db: Db, pool?: pg.Pool) {
  const insertMissing = (rows: readonly Outcome[]) =>
    insertColumns(
      db,
      'plan_outcomes',
      OUTCOME_COLUMNS,
      rows as unknown as ReadonlyArray<Record<string, unknown>>,
      'on conflict (horizon, trade_date, code) do nothing',
    )
  return {
    /** Published plan dates (dates with daily rows) up to `through` that have no outcomes yet for `horizon`. */
    async datesWithoutOutcomes(horizon: number, through: IsoDate): Promise<IsoDate[]> {
      // two small sets of dates (migration 0016) instead of a probe of the daily rows and outcomes per date
      const rows = await sql<{ d: IsoDate }>`
        select p.trade_date::text as d from plan_dates p
        where p.trade_date <= ${through}::date
          and not exists (select from outcome_dates o where o.horizon = ${horizon} and o.trade_date = p.trade_date)
        order by 1`.execute(db)
      return rows.rows.map((r) => r.d)
    },

    async tierCodes(date: IsoDate): Promise<string[]> {
      const rows = await db
        .selectFrom('tier_scores')
        .select('code')
        .where('trade_date', '=', date)
        .orderBy('code')
        .execute()
      return rows.map((r) => r.code)
    },

    /** Each code's bar on the entry day with what its limit-up price needs (board, ST, pre_close). */
    async entryBars(date: IsoDate, codes: readonly string[]): Promise<EntryBarRow[]> {
      if (codes.length === 0) return []
      const rows = await sql<EntryBarRow>`
        select b.code, b.open, b.adj_factor, b.is_suspended, b.pre_close, b.is_st, s.board, s.list_date
        from daily_bars b left join securities s on s.code = b.code
        where b.trade_date = ${date}::date and b.code = any(${codes as string[]})`.execute(db)
      return rows.rows
    },

    async exitBars(date: IsoDate, codes: readonly string[]): Promise<Map<string, ExitBar>> {
      if (codes.length === 0) return new Map()
      const rows = await sql<{ code: string; close: number; adj_factor: number }>`
        select code, close, adj_factor from daily_bars
        where trade_date = ${date}::date and code = any(${codes as string[]})`.execute(db)
      return new Map(rows.rows.map((r) => [r.code, { close: r.close, adjFactor: r.adj_factor }]))
    },

    /** The index's open on `entry` and close on `exit`, or null when either bar is missing. */
    async indexWindow(code: string, entry: IsoDate, exit: IsoDate): Promise<{ open: number; close: number } | null> {
      const rows = await db
        .selectFrom('index_bars')
        .select(['trade_date', 'open', 'close'])
        .where('code', '=', code)
        .where('trade_date', 'in', [entry, exit])
        .execute()
      const open = rows.find((r) => r.trade_date === entry)?.open
      const close = rows.find((r) => r.trade_date === exit)?.close
      return open === undefined || close === undefined ? null : { open, close }
    },

    /** Inserts one (date, horizon)'s rows in one transaction; rows already there stay as they are. */
    async insert(rows: readonly Outcome[]): Promise<number> {
      if (rows.length === 0) return 0
      if (!pool) return insertMissing(rows)
      try {
        return await inTransaction(pool, (client) =>
          copyRows(client, 'plan_outcomes', OUTCOME_COLUMNS, rows as unknown as ReadonlyArray<Record<string, unknown>>),
        )
      } catch (error) {
        // another run wrote some of them first: COPY cannot skip those, the insert can (the COPY rolled back whole)
        if ((error as { code?: string }).code === UNIQUE_VIOLATION) return insertMissing(rows)
        throw error
      }
    },
  }
}

export type OutcomesRepository = ReturnType<typeof createOutcomesRepository>

export type { EntryBar }
