import { sql } from 'kysely'
import type { BarSeries, BuildSecurity, Edge } from '../domain/scoring.js'
import type { FactsFinancial } from '../domain/stock-facts.js'
import type { ThemeEvent } from '../domain/theme-heat.js'
import type { Db } from './db.js'
import type { IsoDate } from './schema.js'

export interface PeStats {
  readonly days: number
  readonly p20: number
  readonly p50: number
  readonly p80: number
}

export interface FinancialRow extends FactsFinancial {
  readonly code: string
}

export interface ForecastRow {
  readonly code: string
  readonly eps_mean: number | null
  readonly eps_low: number | null
  readonly eps_high: number | null
}

/** Reads everything the build and the lookups need, one query per table, restricted to codes when given. */
export function createMarketDataRepository(db: Db) {
  return {
    async latestBarDate(): Promise<IsoDate | undefined> {
      const row = await db.selectFrom('daily_bars').select(sql<IsoDate>`max(trade_date)`.as('d')).executeTakeFirst()
      return row?.d ?? undefined
    },

    /** Trading days up to `date`, ascending: the index calendar, else the stocks' own dates. */
    async calendar(date: IsoDate): Promise<IsoDate[]> {
      const fromIndex = await db
        .selectFrom('index_bars')
        .select('trade_date')
        .distinct()
        .where('trade_date', '<=', date)
        .orderBy('trade_date')
        .execute()
      const dates = fromIndex.map((r) => r.trade_date)
      if (dates.length > 0 && dates[dates.length - 1] === date) return dates
      const fromBars = await db
        .selectFrom('daily_bars')
        .select('trade_date')
        .where('trade_date', '<=', date)
        .groupBy('trade_date')
        .orderBy('trade_date')
        .execute()
      return fromBars.map((r) => r.trade_date)
    },

    securities(codes?: readonly string[]): Promise<Array<BuildSecurity & { board: string }>> {
      let q = db.selectFrom('securities').select(['code', 'name', 'list_date', 'board'])
      if (codes) q = q.where('code', 'in', codes.length > 0 ? codes : [''])
      return q.orderBy('code').execute()
    },

    /** Each code's bars from `from` to `to` as columns (one row per code keeps 300k bars cheap to read). */
    async bars(from: IsoDate, to: IsoDate, codes?: readonly string[]): Promise<Map<string, BarSeries>> {
      const codeFilter = codes ? sql`and code = any(${codes as string[]})` : sql``
      const result = await sql<{ code: string } & BarSeries>`
        select code,
          array_agg(trade_date::text order by trade_date) as dates,
          array_agg(close order by trade_date) as close,
          array_agg(adj_factor order by trade_date) as "adjFactor",
          array_agg(amount order by trade_date) as amount,
          array_agg(is_suspended order by trade_date) as suspended,
          (array_agg(pre_close order by trade_date desc))[1] as "preClose",
          (array_agg(is_st order by trade_date desc))[1] as "isSt"
        from daily_bars
        where trade_date >= ${from}::date and trade_date <= ${to}::date ${codeFilter}
        group by code
        order by code`.execute(db)
      return new Map(result.rows.map(({ code, ...series }) => [code, series]))
    },

    edges(codes?: readonly string[]): Promise<Edge[]> {
      let q = db.selectFrom('theme_edges').selectAll()
      if (codes) q = q.where('code', 'in', codes.length > 0 ? codes : [''])
      return q.orderBy('theme').orderBy('segment').orderBy('code').execute()
    },

    events(from: IsoDate, to: IsoDate): Promise<ThemeEvent[]> {
      return db
        .selectFrom('theme_events')
        .select(['trade_date', 'theme', 'intensity'])
        .where('trade_date', '>=', from)
        .where('trade_date', '<=', to)
        .orderBy('trade_date')
        .execute()
    },

    async lastEventDate(to: IsoDate): Promise<IsoDate | undefined> {
      const row = await db
        .selectFrom('theme_events')
        .select(sql<IsoDate>`max(trade_date)`.as('d'))
        .where('trade_date', '<=', to)
        .executeTakeFirst()
      return row?.d ?? undefined
    },

    /** PE(TTM) percentiles over up to five years before `date` (NULLs, i.e. loss-making days, ignored). */
    async peStats(date: IsoDate, codes?: readonly string[]): Promise<Map<string, PeStats>> {
      const codeFilter = codes ? sql`and code = any(${codes as string[]})` : sql``
      const result = await sql<{ code: string; days: number; p20: number; p50: number; p80: number }>`
        select code, count(*)::int as days,
          percentile_cont(0.2) within group (order by pe_ttm) as p20,
          percentile_cont(0.5) within group (order by pe_ttm) as p50,
          percentile_cont(0.8) within group (order by pe_ttm) as p80
        from daily_basics
        where pe_ttm > 0 and trade_date <= ${date}::date and trade_date > ${date}::date - interval '5 years'
        ${codeFilter}
        group by code`.execute(db)
      return new Map(result.rows.map(({ code, ...stats }) => [code, stats]))
    },

    async basicsOn(
      date: IsoDate,
      codes?: readonly string[],
    ): Promise<Map<string, { pe_ttm: number | null; pb: number | null }>> {
      let q = db.selectFrom('daily_basics').select(['code', 'pe_ttm', 'pb']).where('trade_date', '=', date)
      if (codes) q = q.where('code', 'in', codes.length > 0 ? codes : [''])
      const rows = await q.execute()
      return new Map(rows.map(({ code, ...rest }) => [code, rest]))
    },

    /** Financial reports announced by `date`, newest period first per code. */
    async financials(date: IsoDate, codes?: readonly string[]): Promise<Map<string, FinancialRow[]>> {
      let q = db.selectFrom('financials').selectAll().where('ann_date', '<=', date)
      if (codes) q = q.where('code', 'in', codes.length > 0 ? codes : [''])
      const rows = await q.orderBy('code').orderBy('end_date', 'desc').execute()
      const out = new Map<string, FinancialRow[]>()
      for (const row of rows) {
        const list = out.get(row.code)
        if (list) list.push(row)
        else out.set(row.code, [row])
      }
      return out
    },

    /** The newest consensus for the date's fiscal year (else the next one) known by `date`. */
    async forecasts(date: IsoDate, codes?: readonly string[]): Promise<Map<string, ForecastRow>> {
      const year = Number(date.slice(0, 4))
      let q = db
        .selectFrom('eps_forecasts')
        .select(['code', 'fiscal_year', 'eps_mean', 'eps_low', 'eps_high'])
        .where('as_of', '<=', date)
        .where('fiscal_year', 'in', [year, year + 1])
      if (codes) q = q.where('code', 'in', codes.length > 0 ? codes : [''])
      const rows = await q.orderBy('code').orderBy('fiscal_year').orderBy('as_of', 'desc').execute()
      const out = new Map<string, ForecastRow>()
      for (const row of rows) if (!out.has(row.code)) out.set(row.code, row)
      return out
    },
  }
}

export type MarketDataRepository = ReturnType<typeof createMarketDataRepository>
