import type { Db } from './db.js'
import type { IsoDate, NewStockDailyRow } from './schema.js'

const BATCH = 1000

/** Replaces the date's per-stock daily rows in one transaction. */
export async function replaceStockDaily(db: Db, date: IsoDate, rows: readonly NewStockDailyRow[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('stock_daily').where('trade_date', '=', date).execute()
    for (let i = 0; i < rows.length; i += BATCH) {
      await trx
        .insertInto('stock_daily')
        .values(rows.slice(i, i + BATCH))
        .execute()
    }
  })
}
