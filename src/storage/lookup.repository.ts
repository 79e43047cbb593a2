/**
 * Batch reads of the per-code lookups that the plan and build repositories lack: each method is one statement
 * for any number of codes, so a lookup request costs one query per table, never one per code.
 */
import { sql } from 'kysely'
import { type PeBandStats, VALUATION_RULES } from '../domain/valuation.js'
import { codeIn } from './code-filter.js'
import type { Db } from './db.js'
import { readPaged } from './paged-read.js'
import type { IsoDate, StockDailyRow } from './schema.js'

export interface TierDayRow {
  readonly trade_date: IsoDate
  readonly code: string
  readonly score: number
  readonly tier: 'main' | 'observe' | 'reject'
  readonly invalidated: boolean
  readonly is_suspended: boolean
  readonly score_pct: number | null
  readonly invalidation: string | null
}

export interface TierDays {
  /** Every tier date in the window, ascending (a code without a row on one is absent that day). */
  readonly dates: IsoDate[]
  /** The codes' tier rows in the window, oldest first. */
  readonly rows: TierDayRow[]
}

export interface PeFacts {
  /** PE(TTM) P20/P50/P80 over up to five years (as `peStats`), null when there is no positive day. */
  readonly pe: PeBandStats | null
  /** The date's PE(TTM), as `basicsOn` gives it. */
  readonly peToday: number | null
}

export function createLookupRepository(db: Db) {
  return {
    /** Per code, its stored daily row of `date` if there is one, else its newest one before `date`. */
    latestStoredStates(date: IsoDate, codes: readonly string[]): Promise<StockDailyRow[]> {
      if (codes.length === 0) return Promise.resolve([])
      return readPaged(
        db
          .selectFrom('stock_daily')
          .selectAll()
          .distinctOn('code')
          .where(codeIn(codes))
          .where('trade_date', '<=', date)
          .orderBy('code')
          .orderBy('trade_date', 'desc'),
      )
    },

    /**
     * The tier dates after `since` (all of them when null) up to `date`, and the codes' rows on them. The dates
     * come from a loose index scan (one probe per date), not a scan of the whole table.
     */
    async tierDays(codes: readonly string[], since: IsoDate | null, date: IsoDate): Promise<TierDays> {
      if (codes.length === 0) return { dates: [], rows: [] }
      const after = since === null ? sql`` : sql`and trade_date > ${since}::date`
      const result = await sql<{
        kind: 'date' | 'row'
        trade_date: IsoDate
        code: string | null
        score: number | null
        tier: TierDayRow['tier'] | null
        invalidated: boolean | null
        is_suspended: boolean | null
        score_pct: number | null
        invalidation: string | null
      }>`
        with recursive dates(d) as (
          select min(trade_date) from tier_scores where trade_date <= ${date}::date ${after}
          union all
          select (select min(t.trade_date) from tier_scores t where t.trade_date > dates.d and t.trade_date <= ${date}::date)
          from dates where dates.d is not null
        )
        select 'date' as kind, d as trade_date, null::text as code, null::float8 as score, null::text as tier,
          null::boolean as invalidated, null::boolean as is_suspended, null::float8 as score_pct,
          null::text as invalidation
        from dates where d is not null
        union all
        select 'row', trade_date, code, score, tier, invalidated, is_suspended, score_pct, invalidation from tier_scores
        where code = any(${codes as string[]}) and trade_date <= ${date}::date ${after}
        order by trade_date`.execute(db)
      const dates: IsoDate[] = []
      const rows: TierDayRow[] = []
      for (const r of result.rows) {
        if (r.kind === 'date') dates.push(r.trade_date)
        else
          rows.push({
            trade_date: r.trade_date,
            code: r.code!,
            score: r.score!,
            tier: r.tier!,
            invalidated: r.invalidated!,
            // a suspended day holds the state, as the plan job steps it
            is_suspended: r.is_suspended!,
            score_pct: r.score_pct,
            invalidation: r.invalidation,
          })
      }
      return { dates, rows }
    },

    /** The codes' close on `date` (the price the build valued them at); codes without a bar that day are missing. */
    async closesOn(date: IsoDate, codes: readonly string[]): Promise<Map<string, number>> {
      if (codes.length === 0) return new Map()
      // one primary-key probe per code rather than a scan of the whole day's bars
      const result = await sql<{ code: string; close: number }>`
        select b.code, b.close from unnest(${codes as string[]}::text[]) as c(code)
        join daily_bars b on b.code = c.code and b.trade_date = ${date}::date`.execute(db)
      return new Map(result.rows.map((r) => [r.code, r.close]))
    },

    /**
     * `peStats` and `basicsOn(date)` of the market repository in one statement: the same window (five years up
     * to `date`), the same filter (positive PE(TTM) only) and the same percentiles, so the valuation shown
     * equals the one the build used.
     */
    async peFacts(date: IsoDate, codes: readonly string[]): Promise<Map<string, PeFacts>> {
      if (codes.length === 0) return new Map()
      // per code (lateral), one sort for the three percentiles: percentile_cont(array) interpolates as three calls do
      const { lo, hi } = VALUATION_RULES.peWinsor
      const result = await sql<{ code: string; days: number; p: number[] | null; pe_today: number | null }>`
        select c.code, s.days, s.p, s.pe_today
        from unnest(${codes as string[]}::text[]) as c(code)
        cross join lateral (
          select (count(*) filter (where b.pe_ttm > 0))::int as days,
            percentile_cont(array[0.2, 0.5, 0.8]) within group (order by least(greatest(b.pe_ttm, ${lo}::float8), ${hi}::float8))
              filter (where b.pe_ttm > 0) as p,
            max(b.pe_ttm) filter (where b.trade_date = ${date}::date) as pe_today
          from daily_basics b
          where b.code = c.code and b.trade_date <= ${date}::date and b.trade_date > ${date}::date - interval '5 years'
        ) as s`.execute(db)
      return new Map(
        result.rows.map((r) => [
          r.code,
          {
            pe: r.days > 0 && r.p !== null ? { days: r.days, p20: r.p[0]!, p50: r.p[1]!, p80: r.p[2]! } : null,
            peToday: r.pe_today,
          },
        ]),
      )
    },
  }
}

export type LookupRepository = ReturnType<typeof createLookupRepository>
