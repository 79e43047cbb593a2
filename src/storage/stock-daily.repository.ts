import type pg from 'pg'
import type { ColumnType } from './array-insert.js'
import { copyRows, inTransaction } from './copy-rows.js'
import type { IsoDate, NewStockDailyRow } from './schema.js'

const DAILY_COLUMNS: ReadonlyArray<readonly [string, ColumnType]> = [
  ['code', 'text'],
  ['trade_date', 'date'],
  ['verdict', 'text'],
  ['card_rank', 'int4'],
  ['plan_version', 'text'],
  ['logic_state', 'text'],
  ['score', 'float8'],
  ['score_ema', 'float8'],
  ['state_since', 'date'],
  ['state_rule', 'text'],
  ['days_in_state', 'int4'],
  ['above_days', 'int4'],
  ['absent_days', 'int4'],
  ['code_version', 'text'],
  ['score_pct', 'float8'],
  ['pct_ema', 'float8'],
]

/** Replaces the date's per-stock daily rows in one transaction. */
export async function replaceStockDaily(
  pool: pg.Pool,
  date: IsoDate,
  rows: readonly NewStockDailyRow[],
): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query('delete from stock_daily where trade_date = $1', [date])
    await copyRows(client, 'stock_daily', DAILY_COLUMNS, rows as ReadonlyArray<Record<string, unknown>>)
  })
}
