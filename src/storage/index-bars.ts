import type { Db } from './db.js'
import type { IsoDate } from './schema.js'

/** An index's opens and closes from `from` to `to` (both inclusive), in date order. */
export function indexBarsBetween(
  db: Db,
  code: string,
  from: IsoDate,
  to: IsoDate,
): Promise<Array<{ trade_date: IsoDate; open: number; close: number }>> {
  return db
    .selectFrom('index_bars')
    .select(['trade_date', 'open', 'close'])
    .where('code', '=', code)
    .where('trade_date', '>=', from)
    .where('trade_date', '<=', to)
    .orderBy('trade_date')
    .execute()
}
