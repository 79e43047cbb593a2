import { sql } from 'kysely'
import type { LogicMemory } from '../domain/logic-state.js'
import type { EvidenceEdge, Quote, TierRow, TradeFlag } from '../domain/plan-types.js'
import { SCORE_COMPONENTS } from '../domain/track-record.js'
import { codeIn } from './code-filter.js'
import type { Db } from './db.js'
import type { IsoDate, StockDailyRow } from './schema.js'

export function toLogicMemory(row: StockDailyRow): LogicMemory {
  return {
    state: row.logic_state,
    score: row.score,
    score_ema: row.score_ema,
    score_pct: row.score_pct,
    pct_ema: row.pct_ema,
    state_since: row.state_since,
    days_in_state: row.days_in_state,
    state_rule: row.state_rule,
    above_days: row.above_days,
    absent_days: row.absent_days,
  }
}

const TIER_COLUMNS = [
  'code',
  'name',
  'score',
  'rank',
  'tier',
  'theme',
  'segment',
  'track',
  'upside',
  'heat',
  'transmission',
  'graph_evidence',
  'close',
  'is_suspended',
  'is_st',
  'listed_days',
  'amount_ma20',
  'invalidated',
  ...SCORE_COMPONENTS,
  'points',
  'score_pct',
  'tier_rule',
  'flags',
  'valuation_method',
  'invalidation',
] as const

/** What plan assembly, the plan job and the lookups read; one query per table, optionally for some codes only. */
export function createPlanInputRepository(db: Db) {
  return {
    async tierRows(date: IsoDate, codes?: readonly string[]): Promise<TierRow[]> {
      let q = db.selectFrom('tier_scores').select(TIER_COLUMNS).where('trade_date', '=', date)
      if (codes) q = q.where(codeIn(codes))
      const rows = await q.orderBy('rank').execute()
      return rows.map(
        ({ pts_momentum, pts_trend, pts_heat, pts_upside, pts_liquidity, pts_quality, points, ...r }): TierRow => ({
          ...r,
          graph_evidence: r.graph_evidence as unknown as EvidenceEdge[],
          flags: r.flags as TradeFlag[],
          // PLAN_VERSION 3 rows keep points per signal; older ones their six fixed components
          components:
            Object.keys(points).length > 0
              ? points
              : {
                  momentum: pts_momentum,
                  trend: pts_trend,
                  heat: pts_heat,
                  upside: pts_upside,
                  liquidity: pts_liquidity,
                  quality: pts_quality,
                },
        }),
      )
    },

    /** Per code, its newest stored daily row before `date`, whatever its date (one index probe per code). */
    async latestDailyBefore(date: IsoDate, codes: readonly string[]): Promise<StockDailyRow[]> {
      if (codes.length === 0) return []
      const result = await sql<StockDailyRow>`
        select s.* from unnest(${codes as string[]}::text[]) as c(code)
        cross join lateral (
          select * from stock_daily d where d.code = c.code and d.trade_date < ${date}::date
          order by d.trade_date desc limit 1
        ) as s`.execute(db)
      return result.rows
    },

    /** The day's close, change and turnover of the given codes, from the daily bars. */
    async quotes(date: IsoDate, codes: readonly string[]): Promise<Map<string, Quote>> {
      if (codes.length === 0) return new Map()
      const rows = await db
        .selectFrom('daily_bars')
        .select(['code', 'close', 'pre_close', 'turnover_rate', 'amount'])
        .where('trade_date', '=', date)
        .where(codeIn(codes))
        .execute()
      return new Map(
        rows.map((r) => [
          r.code,
          {
            close: r.close,
            pct_chg: r.pre_close ? r.close / r.pre_close - 1 : null,
            // stored in percent (tushare's unit); plan rows carry ratios as fractions
            turnover_rate: r.turnover_rate === null ? null : r.turnover_rate / 100,
            amount: r.amount,
          },
        ]),
      )
    },

    /**
     * Codes held on `date`: per code the holdings row with the latest as_of not after it (rows without as_of
     * hold always); without a date, the latest row per code.
     */
    async heldCodes(date?: IsoDate): Promise<Set<string>> {
      let q = db.selectFrom('holdings').select(['code', 'qty']).distinctOn('code')
      if (date !== undefined) q = q.where('as_of', '<=', date)
      const rows = await q.orderBy('code').orderBy('as_of', 'desc').execute()
      return new Set(rows.filter((r) => r.qty > 0).map((r) => r.code))
    },

    async previousTierDate(date: IsoDate): Promise<IsoDate | undefined> {
      const row = await db
        .selectFrom('tier_scores')
        .select(sql<IsoDate>`max(trade_date)`.as('d'))
        .where('trade_date', '<', date)
        .executeTakeFirst()
      return row?.d ?? undefined
    },

    /** The stored main list of a date in card order, or undefined when the plan job has not run for it. */
    async storedMain(date: IsoDate): Promise<string[] | undefined> {
      // the main rows by their partial index, not the day's 5,000 rows
      const read = sql<{ published: boolean; main: string[] }>`
        select exists (select from plan_dates where trade_date = ${date}) as published,
          array(select code from stock_daily where trade_date = ${date} and verdict = 'main' order by card_rank, code) as main`
      const { rows } = await read.execute(db)
      const [row] = rows
      return row?.published ? row.main : undefined
    },

    /**
     * The published `main` lists of the `days` tier dates before `date`, newest first, in one round trip; the walk
     * stops at the first tier date whose plan was not published (holding streaks end there).
     */
    async publishedMains(date: IsoDate, days: number): Promise<string[][]> {
      if (days <= 0) return []
      // one index probe a date for the previous tier date (a loose index scan): distinct dates would read every row
      const { rows } = await sql<{ n: number; published: boolean; code: string | null }>`
        with recursive tier_days (trade_date, n) as (
          select (select max(trade_date) from tier_scores where trade_date < ${date}), 1
          union all
          select (select max(t.trade_date) from tier_scores t where t.trade_date < d.trade_date), d.n + 1
          from tier_days d where d.n < ${days} and d.trade_date is not null
        )
        select d.n, exists (select from plan_dates p where p.trade_date = d.trade_date) as published, s.code
        from tier_days d
        left join lateral (
          select code, card_rank from stock_daily where trade_date = d.trade_date and verdict = 'main'
        ) s on true
        where d.trade_date is not null
        order by d.n, s.card_rank, s.code`.execute(db)
      const lists: string[][] = []
      for (const row of rows) {
        if (!row.published) break
        if (lists.length < row.n) lists.push([])
        if (row.code !== null) lists[row.n - 1]!.push(row.code)
      }
      return lists
    },

    dailyRows(date: IsoDate, codes?: readonly string[]): Promise<StockDailyRow[]> {
      let q = db.selectFrom('stock_daily').selectAll().where('trade_date', '=', date)
      if (codes) q = q.where(codeIn(codes))
      return q.execute()
    },

    /** Each code's stored daily rows before `date`, newest first, at most `limit` days back. */
    async dailyHistory(date: IsoDate, codes: readonly string[], since: IsoDate): Promise<StockDailyRow[]> {
      if (codes.length === 0) return []
      return db
        .selectFrom('stock_daily')
        .selectAll()
        .where(codeIn(codes))
        .where('trade_date', '<', date)
        .where('trade_date', '>=', since)
        .orderBy('code')
        .orderBy('trade_date', 'desc')
        .execute()
    },

    /** Tier scores of the codes from `since` to `date`, oldest first. */
    async tierHistory(codes: readonly string[], since: IsoDate, date: IsoDate) {
      if (codes.length === 0) return []
      return db
        .selectFrom('tier_scores')
        .select(['code', 'trade_date', 'score', 'tier', 'invalidated', 'is_suspended', 'score_pct', 'invalidation'])
        .where(codeIn(codes))
        .where('trade_date', '>=', since)
        .where('trade_date', '<=', date)
        .orderBy('trade_date')
        .execute()
    },

    async tierDates(since: IsoDate, date: IsoDate): Promise<IsoDate[]> {
      const rows = await db
        .selectFrom('tier_scores')
        .select('trade_date')
        .distinct()
        .where('trade_date', '>=', since)
        .where('trade_date', '<=', date)
        .orderBy('trade_date')
        .execute()
      return rows.map((r) => r.trade_date)
    },
  }
}

export type PlanInputRepository = ReturnType<typeof createPlanInputRepository>
