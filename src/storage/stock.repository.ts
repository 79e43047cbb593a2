import { sql } from 'kysely'
import type { StoredBar } from '../domain/stock-chart.js'
import { codeIn } from './code-filter.js'
import type { Db } from './db.js'
import type { IsoDate } from './schema.js'

export interface StockIdentity {
  readonly code: string
  readonly name: string
  readonly industry: string | null
}

export interface StockFundamentals {
  readonly code: string
  readonly date: IsoDate
  readonly total_mv: number | null
  readonly circ_mv: number | null
  readonly pe_ttm: number | null
  readonly pb: number | null
}

export interface StockMark {
  readonly date: IsoDate
  readonly verdict: string
  readonly card_rank: number | null
  readonly logic_state: string
  readonly state_rule: string
  readonly state_since: IsoDate
}

export interface TierPosition {
  readonly code: string
  readonly rank: number
  readonly score: number
  readonly tier: string
}

/** What the stock panel and the viewer's row facts read: bars, daily basics, the plan's stored marks. */
export function createStockRepository(db: Db) {
  return {
    async identities(codes: readonly string[]): Promise<Map<string, StockIdentity>> {
      if (codes.length === 0) return new Map()
      const rows = await db.selectFrom('securities').select(['code', 'name', 'industry']).where(codeIn(codes)).execute()
      return new Map(rows.map((r) => [r.code, r]))
    },

    /** The last `limit` bars on or before `to`, oldest first. */
    async bars(code: string, to: IsoDate, limit: number): Promise<StoredBar[]> {
      const rows = await db
        .selectFrom('daily_bars')
        .select(['trade_date', 'open', 'high', 'low', 'close', 'volume', 'amount', 'adj_factor', 'is_suspended'])
        .where('code', '=', code)
        .where('trade_date', '<=', to)
        .orderBy('trade_date', 'desc')
        .limit(limit)
        .execute()
      return rows.reverse()
    },

    /** The latest daily basics of each code on or before `date`. */
    async fundamentals(codes: readonly string[], date: IsoDate): Promise<Map<string, StockFundamentals>> {
      if (codes.length === 0) return new Map()
      const result = await sql<StockFundamentals>`
        select distinct on (code) code, trade_date as date, total_mv, circ_mv, pe_ttm, pb
        from daily_basics
        where code = any(${codes as string[]}) and trade_date <= ${date}::date
          and trade_date > ${date}::date - interval '30 days'
        order by code, trade_date desc`.execute(db)
      return new Map(result.rows.map((r) => [r.code, r]))
    },

    /** The morning plans' stored rows of the code between two dates, oldest first. */
    async marks(code: string, from: IsoDate, to: IsoDate): Promise<StockMark[]> {
      return db
        .selectFrom('stock_daily')
        .select(['trade_date as date', 'verdict', 'card_rank', 'logic_state', 'state_rule', 'state_since'])
        .where('code', '=', code)
        .where('trade_date', '>=', from)
        .where('trade_date', '<=', to)
        .orderBy('trade_date')
        .execute()
    },

    /** The tier-table date before `date`, if any. */
    async previousTierDate(date: IsoDate): Promise<IsoDate | null> {
      const row = await db
        .selectFrom('tier_scores')
        .select('trade_date')
        .where('trade_date', '<', date)
        .orderBy('trade_date', 'desc')
        .limit(1)
        .executeTakeFirst()
      return row?.trade_date ?? null
    },

    async tierPositions(codes: readonly string[], date: IsoDate): Promise<Map<string, TierPosition>> {
      if (codes.length === 0) return new Map()
      const rows = await db
        .selectFrom('tier_scores')
        .select(['code', 'rank', 'score', 'tier'])
        .where('trade_date', '=', date)
        .where(codeIn(codes))
        .execute()
      return new Map(rows.map((r) => [r.code, r]))
    },
  }
}

export type StockRepository = ReturnType<typeof createStockRepository>
