import { sql } from 'kysely'
import type { BookDayFacts } from '../domain/book-exposures.js'
import type { Db } from './db.js'
import { indexBarsBetween } from './index-bars.js'
import type { IsoDate } from './schema.js'

/** A stock's bar as the book reads it; the 20-day figures are of the 20 traded days before it. */
export interface BookBarRow {
  readonly date: IsoDate
  readonly open: number
  readonly close: number
  readonly adj: number
  readonly preClose: number | null
  readonly isSt: boolean
  readonly upLimit: number | null
  readonly downLimit: number | null
  readonly amount20d: number | null
  readonly vol20d: number | null
}

export interface BookCodeBars {
  readonly code: string
  readonly board: string | null
  readonly listDate: IsoDate | null
  /** Ascending by date; suspended days are left out. */
  readonly bars: BookBarRow[]
  /** The last date read, when before the end of the range. */
  readonly until?: IsoDate
}

/** A tier row as `isEligible` reads it. */
export interface ScreenRow {
  readonly code: string
  readonly amount_ma20: number
  readonly is_suspended: boolean
  readonly is_st: boolean
  readonly listed_days: number
  readonly invalidated: boolean
}

/** code, amount_ma20, is_suspended, is_st, listed_days, invalidated */
type ScreenTuple = [string, number, boolean, boolean, number, boolean]

/**
 * A traded bar as the universe reads it: date and back-adjusted close; on the days it is measured on also
 * open, close, adj, pre_close, is_st, up_limit, down_limit.
 */
export type UniverseBarTuple =
  | readonly [IsoDate, number]
  | readonly [IsoDate, number, number, number, number, number | null, boolean, number | null, number | null]

export interface UniverseCodeBars {
  readonly industry: string | null
  readonly board: string | null
  readonly listDate: IsoDate | null
  /** Ascending by date; suspended days are left out. */
  readonly bars: readonly UniverseBarTuple[]
}

/** What a code's bars are read for: from its first target day on, with the 20 traded days before for its figures. */
export interface BarsWanted {
  readonly code: string
  /** First date whose bar is returned. */
  readonly from: IsoDate
  /** First date read for the 20-day figures (about 30 trading days before `from`). */
  readonly lookFrom: IsoDate
  /** Last date read; the end of the range when absent. */
  readonly until?: IsoDate
}

/** date, open, close, adj, pre_close, is_st, up_limit, down_limit, amount */
type RawTuple = [IsoDate, number, number, number, number | null, boolean, number | null, number | null, number]

/**
 * The bars from `from` on, each with the mean traded value and the sample sd of the back-adjusted close-to-close
 * returns of the (up to) 20 traded bars before it.
 */
function withFigures(raw: readonly RawTuple[], from: IsoDate): BookBarRow[] {
  const out: BookBarRow[] = []
  const ret = (k: number): number => (raw[k]![2] * raw[k]![3]) / (raw[k - 1]![2] * raw[k - 1]![3]) - 1
  for (let i = 0; i < raw.length; i++) {
    const [date, open, close, adj, preClose, isSt, upLimit, downLimit] = raw[i]!
    if (date < from) continue
    const lo = Math.max(0, i - 20)
    let amount = 0
    for (let k = lo; k < i; k++) amount += raw[k]![8]
    const rets: number[] = []
    for (let k = Math.max(1, lo); k < i; k++) rets.push(ret(k))
    const mean = rets.reduce((a, b) => a + b, 0) / rets.length
    const vol = rets.length >= 2 ? Math.sqrt(rets.reduce((a, r) => a + (r - mean) ** 2, 0) / (rets.length - 1)) : null
    out.push({
      date,
      open,
      close,
      adj,
      preClose,
      isSt,
      upLimit,
      downLimit,
      amount20d: i > lo ? amount / (i - lo) : null,
      vol20d: vol,
    })
  }
  return out
}

/** Reads what the main book needs: each day's `main`, its names' bars, and the per-day universe facts. */
export function createBookRepository(db: Db) {
  return {
    /** Each plan date's `main` tier rows in rank order, at most `depth` a day. */
    async mainLists(depth: number, from?: IsoDate, to?: IsoDate): Promise<Map<IsoDate, string[]>> {
      const rows = await sql<{ d: IsoDate; codes: string[] }>`
        select trade_date::text as d, (array_agg(code order by rank, code))[1:${depth}] as codes
        from tier_scores
        where tier = 'main' and trade_date between ${from ?? '0001-01-01'}::date and ${to ?? '9999-12-31'}::date
        group by trade_date`.execute(db)
      return new Map(rows.rows.map((r) => [r.d, r.codes]))
    },

    /** Plan dates (dates with tier rows) between the dates, ascending. */
    async planDates(from?: IsoDate, to?: IsoDate): Promise<IsoDate[]> {
      const rows = await sql<{ d: IsoDate }>`
        select trade_date::text as d from plan_dates
        where trade_date between ${from ?? '0001-01-01'}::date and ${to ?? '9999-12-31'}::date
        order by 1`.execute(db)
      return rows.rows.map((r) => r.d)
    },

    /**
     * The codes' traded bars from their `from` through `to`, each with the mean traded value and the standard
     * deviation of the back-adjusted close-to-close returns of the 20 traded days before it. One JSON row per code.
     */
    async bars(wanted: readonly BarsWanted[], to: IsoDate): Promise<BookCodeBars[]> {
      if (wanted.length === 0) return []
      // the raw traded bars, one JSON row per code; the 20-day figures are computed below (SQL's moving windows over
      // 170,000 bars took 2.6 s of a 4 s report on the real market)
      const rows = await sql<{ code: string; board: string | null; list_date: IsoDate | null; bars: RawTuple[] }>`
        with wanted as (
          select * from unnest(${wanted.map((w) => w.code)}::text[], ${wanted.map((w) => w.lookFrom)}::date[],
            ${wanted.map((w) => (w.until !== undefined && w.until < to ? w.until : to))}::date[]) as w(code, look_from, until)
        )
        select w.code, s.board, s.list_date::text as list_date,
          (select json_agg(json_build_array(b.trade_date, b.open, b.close, b.adj_factor, b.pre_close, b.is_st,
              b.up_limit, b.down_limit, b.amount) order by b.trade_date)
           from daily_bars b
           where b.code = w.code and b.trade_date between w.look_from and w.until and not b.is_suspended) as bars
        from wanted w left join securities s on s.code = w.code`.execute(db)
      const byCode = new Map(wanted.map((w) => [w.code, w]))
      return rows.rows.map((r) => {
        const w = byCode.get(r.code)!
        return {
          code: r.code,
          board: r.board,
          listDate: r.list_date,
          bars: withFigures(r.bars ?? [], w.from),
          ...(w.until !== undefined && w.until < to ? { until: w.until } : {}),
        }
      })
    },

    /** The index's closes between two dates, by date. */
    async indexCloses(code: string, from: IsoDate, to: IsoDate): Promise<Map<IsoDate, number>> {
      const rows = await indexBarsBetween(db, code, from, to)
      return new Map(rows.map((r) => [r.trade_date, r.close]))
    },

    /** Each plan date's tier rows between the dates with what `isEligible` reads, by date; one JSON row a date. */
    async screenRows(from: IsoDate, to: IsoDate): Promise<Map<IsoDate, ScreenRow[]>> {
      const rows = await sql<{ d: IsoDate; rows: ScreenTuple[] }>`
        select trade_date::text as d,
          json_agg(json_build_array(code, amount_ma20, is_suspended, is_st, listed_days, invalidated)) as rows
        from tier_scores
        where trade_date between ${from}::date and ${to}::date
        group by trade_date`.execute(db)
      return new Map(
        rows.rows.map((r) => [
          r.d,
          r.rows.map(([code, amount_ma20, is_suspended, is_st, listed_days, invalidated]) => ({
            code,
            amount_ma20,
            is_suspended,
            is_st,
            listed_days,
            invalidated,
          })),
        ]),
      )
    },

    /**
     * The codes' traded bars between two dates, one JSON row per code: each bar's back-adjusted close, and from
     * `dayFrom` on (the days the universe is measured on) its open, close, adjustment, pre-close, ST flag and limits.
     */
    async universeBars(
      codes: readonly string[],
      from: IsoDate,
      to: IsoDate,
      dayFrom: IsoDate,
    ): Promise<Map<string, UniverseCodeBars>> {
      if (codes.length === 0) return new Map()
      const rows = await sql<{
        code: string
        industry: string | null
        board: string | null
        list_date: IsoDate | null
        bars: UniverseBarTuple[] | null
      }>`
        select c.code, s.industry, s.board, s.list_date::text as list_date,
          (select json_agg(case when b.trade_date < ${dayFrom}::date
              then json_build_array(b.trade_date, b.close * b.adj_factor)
              else json_build_array(b.trade_date, b.close * b.adj_factor, b.open, b.close, b.adj_factor, b.pre_close,
                b.is_st, b.up_limit, b.down_limit) end order by b.trade_date)
           from daily_bars b
           where b.code = c.code and b.trade_date between ${from}::date and ${to}::date and not b.is_suspended) as bars
        from unnest(${[...codes]}::text[]) as c(code) left join securities s on s.code = c.code`.execute(db)
      return new Map(
        rows.rows.map((r) => [
          r.code,
          { industry: r.industry, board: r.board, listDate: r.list_date, bars: r.bars ?? [] },
        ]),
      )
    },

    /** The stored facts of plan dates between the dates, by date. */
    async readFacts(from?: IsoDate, to?: IsoDate): Promise<Map<IsoDate, { next: IsoDate; facts: BookDayFacts }>> {
      let q = db.selectFrom('plan_day_book').select(['trade_date', 'next_date', 'facts'])
      if (from) q = q.where('trade_date', '>=', from)
      if (to) q = q.where('trade_date', '<=', to)
      const rows = await q.execute()
      return new Map(rows.map((r) => [r.trade_date, { next: r.next_date, facts: r.facts }]))
    },

    /** Plan dates with stored facts. */
    async factDates(): Promise<Set<IsoDate>> {
      const rows = await db.selectFrom('plan_day_book').select('trade_date').execute()
      return new Set(rows.map((r) => r.trade_date))
    },

    /** Writes (or replaces) plan days' facts. */
    async writeFacts(days: ReadonlyArray<{ date: IsoDate; next: IsoDate; facts: BookDayFacts }>): Promise<void> {
      if (days.length === 0) return
      await db
        .insertInto('plan_day_book')
        .values(days.map((d) => ({ trade_date: d.date, next_date: d.next, facts: JSON.stringify(d.facts) })))
        .onConflict((oc) =>
          oc.column('trade_date').doUpdateSet((eb) => ({
            next_date: eb.ref('excluded.next_date'),
            facts: eb.ref('excluded.facts'),
            computed_at: sql<Date>`now()`,
          })),
        )
        .execute()
    },
  }
}

export type BookRepository = ReturnType<typeof createBookRepository>
