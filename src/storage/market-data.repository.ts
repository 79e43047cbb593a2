import { sql } from 'kysely'
import type { BoardSeries } from '../domain/board-heat.js'
import type { BarSeries, BuildSecurity, Edge } from '../domain/scoring.js'
import type { FactsFinancial } from '../domain/stock-facts.js'
import type { ThemeEvent } from '../domain/theme-heat.js'
import type { CalendarAround } from '../domain/trading-days.js'
import { VALUATION_RULES } from '../domain/valuation.js'
import { codeIn } from './code-filter.js'
import { doubles, flagColumn, flags, floatColumn } from './column-bytes.js'
import type { Db } from './db.js'
import { indexBarsBetween } from './index-bars.js'
import { readPaged } from './paged-read.js'
import type { IsoDate } from './schema.js'

/** A row of `bars`: the columns as `column-bytes` sends them, the last day's values as they are. */
interface BarRow {
  readonly code: string
  readonly dates: string
  readonly close: Buffer
  readonly amount: Buffer
  readonly suspended: string
  readonly volume: Buffer
  readonly turnover: Buffer
  readonly intraday: Buffer
  readonly preClose: number | null
  readonly isSt: boolean
  readonly open: number | null
  readonly high: number | null
  readonly low: number | null
}

function barSeriesOf(row: BarRow): BarSeries {
  const close = doubles(row.close)
  return {
    dates: row.dates.split(','),
    close,
    adjFactor: new Float64Array(close.length).fill(1),
    amount: doubles(row.amount),
    suspended: flags(row.suspended),
    volume: doubles(row.volume),
    turnover: doubles(row.turnover),
    intraday: doubles(row.intraday),
    preClose: row.preClose,
    isSt: row.isSt,
    open: row.open,
    high: row.high,
    low: row.low,
  }
}

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
  readonly as_of: IsoDate
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

    /**
     * Trading days up to `date` that have bars, ascending: the imported trading calendar (tushare trade_cal)
     * when it reaches `date`, else the index calendar, else the stocks' own dates.
     */
    async calendar(date: IsoDate): Promise<IsoDate[]> {
      const fromCalendar = await sql<{ d: IsoDate }>`
        select cal_date::text as d from trading_calendar
        where is_open and cal_date <= least(${date}::date, (select max(trade_date) from daily_bars))
          and exists (select from trading_calendar where cal_date >= ${date}::date)
        order by cal_date`.execute(db)
      if (fromCalendar.rows.length > 0) return fromCalendar.rows.map((r) => r.d)
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

    /** Whether `date` is a trading day by the imported calendar (else the index bars), and its neighbours. */
    async calendarAround(date: IsoDate): Promise<CalendarAround> {
      const { rows } = await sql<{ open: boolean | null; cal: boolean; before: IsoDate | null; after: IsoDate | null }>`
        with known as (select exists (select from trading_calendar) as cal),
        days as (
          select cal_date as d from trading_calendar where is_open and (select cal from known)
          union all
          select distinct trade_date from index_bars where not (select cal from known)
        )
        select (select is_open from trading_calendar where cal_date = ${date}::date) as open,
          (select cal from known) as cal,
          (select max(d)::text from days where d < ${date}::date) as before,
          (select min(d)::text from days where d > ${date}::date) as after`.execute(db)
      const row = rows[0]!
      const indexDay = row.cal
        ? undefined
        : await db.selectFrom('index_bars').select('code').where('trade_date', '=', date).limit(1).executeTakeFirst()
      return {
        open: row.open ?? (indexDay ? true : undefined),
        before: row.before ?? undefined,
        after: row.after ?? undefined,
      }
    },

    /** Codes listed on `date` (by list and delist dates) that have no bar that day, suspended-day rows counting. */
    async missingBars(date: IsoDate): Promise<number> {
      const row = await sql<{ n: number }>`
        select count(*)::int as n from securities s
        where (s.list_date is null or s.list_date <= ${date}::date)
          and (s.delist_date is null or s.delist_date > ${date}::date)
          and (s.list_status is distinct from 'D' or s.delist_date is not null)
          and not exists (select from daily_bars b where b.code = s.code and b.trade_date = ${date}::date)`.execute(db)
      return row.rows[0]?.n ?? 0
    },

    securities(codes?: readonly string[]): Promise<Array<BuildSecurity & { board: string }>> {
      let q = db.selectFrom('securities').select(['code', 'name', 'list_date', 'board'])
      if (codes) q = q.where(codeIn(codes))
      return q.orderBy('code').execute()
    },

    /**
     * Each code's bars from `from` to `to` as columns (one row per code keeps 300k bars cheap to read). Closes
     * come forward-adjusted (close x adj_factor / the last day's adj_factor): an ex-rights day shows no jump, the
     * last close is the day's real price, and `adjFactor` is 1 throughout (the series is already adjusted).
     * Volumes come on the last day's share count (volume x the last day's adj_factor / adj_factor): a bonus issue
     * or split does not raise them. Amounts are traded value, which neither changes.
     */
    async bars(from: IsoDate, to: IsoDate, codes?: readonly string[]): Promise<Map<string, BarSeries>> {
      const codeFilter = codes ? sql`and code = any(${codes as string[]})` : sql``
      // every aggregate orders by trade_date, so they all read the window's sorted rows without a sort of their own
      const lastOf = (column: string) => sql.raw(`(array_agg(${column} order by trade_date))[count(*)]`)
      const result = await sql<BarRow>`
        select code,
          string_agg(trade_date::text, ',' order by trade_date) as dates,
          -- a day with the last day's factor keeps its close exactly (no x f / f rounding)
          ${floatColumn('case when adj_factor = last_factor then close else close * adj_factor / last_factor end')}
            as close,
          ${floatColumn('amount')} as amount,
          ${flagColumn('is_suspended')} as suspended,
          ${floatColumn('case when adj_factor = last_factor then volume else volume * last_factor / adj_factor end')}
            as volume,
          ${floatColumn("coalesce(turnover_rate, 'NaN')")} as turnover,
          ${floatColumn("case when open > 0 then close / open else 'NaN'::double precision end")} as intraday,
          ${lastOf('pre_close')} as "preClose",
          ${lastOf('is_st')} as "isSt",
          ${lastOf('open')} as "open",
          ${lastOf('high')} as "high",
          ${lastOf('low')} as "low"
        from (select *, last_value(adj_factor) over (partition by code order by trade_date
                rows between unbounded preceding and unbounded following) as last_factor
              from daily_bars
              where trade_date >= ${from}::date and trade_date <= ${to}::date ${codeFilter}) adjusted
        group by code
        order by code`.execute(db)
      return new Map(result.rows.map((row) => [row.code, barSeriesOf(row)]))
    },

    /** The index's daily close-to-close returns by date, over `from`..`to` (the first day has none). */
    async indexReturns(code: string, from: IsoDate, to: IsoDate): Promise<Map<IsoDate, number>> {
      const rows = await indexBarsBetween(db, code, from, to)
      const out = new Map<IsoDate, number>()
      for (let i = 1; i < rows.length; i++) {
        const prev = rows[i - 1]!.close
        if (prev > 0) out.set(rows[i]!.trade_date, rows[i]!.close / prev - 1)
      }
      return out
    },

    /** Theme edges, only those valid on `on` when given (valid_from and valid_to inclusive; no dates: always). */
    edges(codes?: readonly string[], on?: IsoDate): Promise<Edge[]> {
      let q = db.selectFrom('theme_edges').select(['theme', 'segment', 'code', 'weight', 'evidence', 'track'])
      if (codes) q = q.where(codeIn(codes))
      if (on !== undefined) {
        q = q.where('valid_from', '<=', on).where((eb) => eb.or([eb('valid_to', 'is', null), eb('valid_to', '>=', on)]))
      }
      return q.orderBy('theme').orderBy('segment').orderBy('code').execute()
    },

    /** Concept board closes by board name (the theme its members' edges carry), oldest first, from..to. */
    async boardSeries(from: IsoDate, to: IsoDate): Promise<Map<string, BoardSeries>> {
      const rows = await db
        .selectFrom('concept_bars as c')
        .innerJoin('concept_boards as b', 'b.code', 'c.code')
        .select(['b.name', 'c.trade_date', 'c.close'])
        .where('c.trade_date', '>=', from)
        .where('c.trade_date', '<=', to)
        .orderBy('b.name')
        .orderBy('b.code')
        .orderBy('c.trade_date')
        .execute()
      const out = new Map<string, { dates: IsoDate[]; close: number[] }>()
      for (const row of rows) {
        const series = out.get(row.name) ?? { dates: [], close: [] }
        // two boards of one name: the first by code
        if (series.dates.at(-1) !== undefined && series.dates.at(-1)! >= row.trade_date) continue
        series.dates.push(row.trade_date)
        series.close.push(row.close)
        out.set(row.name, series)
      }
      return out
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

    /**
     * Winsorised PE(TTM) percentiles over up to five years before `date` (NULLs, i.e. loss-making days,
     * ignored; each day clipped into VALUATION_RULES.peWinsor, as `peBandStats` does).
     */
    async peStats(date: IsoDate, codes?: readonly string[]): Promise<Map<string, PeStats>> {
      const codeFilter = codes ? sql`and code = any(${codes as string[]})` : sql``
      const { lo, hi } = VALUATION_RULES.peWinsor
      const pe = sql`least(greatest(pe_ttm, ${lo}::float8), ${hi}::float8)`
      const result = await sql<{ code: string; days: number; p20: number; p50: number; p80: number }>`
        select code, count(*)::int as days,
          percentile_cont(0.2) within group (order by ${pe}) as p20,
          percentile_cont(0.5) within group (order by ${pe}) as p50,
          percentile_cont(0.8) within group (order by ${pe}) as p80
        from daily_basics
        where pe_ttm > 0 and trade_date <= ${date}::date and trade_date > ${date}::date - interval '5 years'
        ${codeFilter}
        group by code`.execute(db)
      return new Map(result.rows.map(({ code, ...stats }) => [code, stats]))
    },

    async basicsOn(
      date: IsoDate,
      codes?: readonly string[],
    ): Promise<Map<string, { pe_ttm: number | null; pb: number | null; total_mv: number | null }>> {
      let q = db.selectFrom('daily_basics').select(['code', 'pe_ttm', 'pb', 'total_mv']).where('trade_date', '=', date)
      if (codes) q = q.where(codeIn(codes))
      const rows = await q.execute()
      return new Map(rows.map(({ code, ...rest }) => [code, rest]))
    },

    /**
     * Financial reports as known on `date`: per period the latest version announced by then (a restatement
     * announced later is not seen), newest period first per code.
     */
    async financials(date: IsoDate, codes?: readonly string[]): Promise<Map<string, FinancialRow[]>> {
      let q = db.selectFrom('financials').selectAll().distinctOn(['code', 'end_date']).where('ann_date', '<=', date)
      if (codes) q = q.where(codeIn(codes))
      const rows = await readPaged(q.orderBy('code').orderBy('end_date', 'desc').orderBy('ann_date', 'desc'))
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
        .select(['code', 'as_of', 'fiscal_year', 'eps_mean', 'eps_low', 'eps_high'])
        .where('as_of', '<=', date)
        .where('fiscal_year', 'in', [year, year + 1])
      if (codes) q = q.where(codeIn(codes))
      const rows = await q.orderBy('code').orderBy('fiscal_year').orderBy('as_of', 'desc').execute()
      const out = new Map<string, ForecastRow>()
      for (const row of rows) if (!out.has(row.code)) out.set(row.code, row)
      return out
    },
  }
}

export type MarketDataRepository = ReturnType<typeof createMarketDataRepository>
