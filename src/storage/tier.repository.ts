import { sql } from 'kysely'
import { codeIn } from './code-filter.js'
import type { Db } from './db.js'
import type { BuildRow, IsoDate, TierScoreRow } from './schema.js'

export function createTierRepository(db: Db) {
  return {
    async latestDate(): Promise<IsoDate | undefined> {
      const row = await db.selectFrom('tier_scores').select(sql<IsoDate>`max(trade_date)`.as('d')).executeTakeFirst()
      return row?.d ?? undefined
    },
    async listDates(limit: number): Promise<IsoDate[]> {
      const rows = await db
        .selectFrom('tier_scores')
        .select('trade_date')
        .distinct()
        .orderBy('trade_date', 'desc')
        .limit(limit)
        .execute()
      return rows.map((r) => r.trade_date)
    },
    rowsForDate(date: IsoDate): Promise<TierScoreRow[]> {
      return db.selectFrom('tier_scores').selectAll().where('trade_date', '=', date).orderBy('rank').execute()
    },
    rowsForCodes(date: IsoDate, codes: readonly string[]): Promise<TierScoreRow[]> {
      if (codes.length === 0) return Promise.resolve([])
      return db.selectFrom('tier_scores').selectAll().where('trade_date', '=', date).where(codeIn(codes)).execute()
    },
    async latestBuild(date: IsoDate): Promise<BuildRow | undefined> {
      return db
        .selectFrom('builds')
        .selectAll()
        .where('trade_date', '=', date)
        .orderBy('finished_at', 'desc')
        .limit(1)
        .executeTakeFirst()
    },
  }
}

export type TierRepository = ReturnType<typeof createTierRepository>
