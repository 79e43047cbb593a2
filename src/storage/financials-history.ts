import type { Db } from './db.js'
import type { FinancialRow } from './market-data.repository.js'
import { readPaged } from './paged-read.js'
import type { IsoDate } from './schema.js'

/** Financial reports as known on a date, as `MarketDataRepository.financials` gives them. */
export type FinancialsSource = (date: IsoDate) => Promise<Map<string, FinancialRow[]>>

/**
 * Every report version announced by `to`, read once, answering `financials` for any date up to `to` in memory:
 * per code and period the latest version announced by the date, newest period first. The store's query reads every
 * report announced so far a page at a time, which a replay would repeat each day over a growing history.
 */
export async function loadFinancialsHistory(db: Db, to: IsoDate): Promise<FinancialsSource> {
  const rows = await readPaged(
    db
      .selectFrom('financials')
      .selectAll()
      .where('ann_date', '<=', to)
      .orderBy('code')
      .orderBy('end_date', 'desc')
      .orderBy('ann_date', 'desc'),
  )
  const byCode = new Map<string, typeof rows>()
  for (const row of rows) {
    const list = byCode.get(row.code)
    if (list) list.push(row)
    else byCode.set(row.code, [row])
  }
  return async (date) => {
    if (date > to) throw new Error(`financials history holds reports announced by ${to}; asked for ${date}`)
    const out = new Map<string, FinancialRow[]>()
    for (const [code, versions] of byCode) {
      const known: typeof rows = []
      for (const row of versions) {
        // versions come newest announcement first within a period: the first one known by the date is the one
        if (row.ann_date <= date && known.at(-1)?.end_date !== row.end_date) known.push(row)
      }
      if (known.length > 0) out.set(code, known)
    }
    return out
  }
}
