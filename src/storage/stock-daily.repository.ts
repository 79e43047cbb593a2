import { type ColumnType, insertColumns } from './array-insert.js'
import type { Db } from './db.js'
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
export async function replaceStockDaily(db: Db, date: IsoDate, rows: readonly NewStockDailyRow[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('stock_daily').where('trade_date', '=', date).execute()
    await insertColumns(trx, 'stock_daily', DAILY_COLUMNS, rows as ReadonlyArray<Record<string, unknown>>)
  })
}
