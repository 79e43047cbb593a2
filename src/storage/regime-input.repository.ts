import type { Board } from '../domain/codes.js'
import type { MarketInput } from '../domain/regime.js'
import { tradingDaysBetween } from '../domain/trading-days.js'
import type { Db } from './db.js'
import type { IsoDate } from './schema.js'

export const REGIME_INDEX = '000300.SH'
export const MA_DAYS = 20

/** The whole-market figures of a date and its calendar, from the store or from a replay's history read once. */
export type MarketInputSource = (date: IsoDate, calendar: readonly IsoDate[]) => Promise<MarketInput>

/** The rows the regime's four items are computed from, whichever way they were read. */
export interface MarketRows {
  /** The day's bar of each code that has a security row. */
  readonly stocks: ReadonlyArray<{
    readonly code: string
    readonly close: number
    readonly pre_close: number | null
    readonly amount: number
    readonly adj_factor: number
    readonly is_st: boolean
    readonly is_suspended: boolean
    readonly board: string
    readonly list_date: IsoDate | null
  }>
  /** Per code, the mean adjusted close and the count of its traded bars over the MA window. */
  readonly averages: ReadonlyMap<string, { readonly ma: number; readonly n: number }>
  /** The whole market's amount per day of the MA window that has bars, oldest first. */
  readonly amounts: readonly number[]
  /** The index's closes up to the date, newest first, at most MA_DAYS. */
  readonly index: ReadonlyArray<{ readonly trade_date: IsoDate; readonly close: number }>
}

/** The MA window ending on `date`: its first day (the date itself when the calendar is empty). */
export function maWindowStart(date: IsoDate, calendar: readonly IsoDate[]): IsoDate {
  const window = calendar.filter((d) => d <= date).slice(-MA_DAYS)
  return window[0] ?? date
}

/** The regime's input from the rows of the date: the same figures whether the rows came from SQL or memory. */
export function assembleMarketInput(date: IsoDate, calendar: readonly IsoDate[], rows: MarketRows): MarketInput {
  const tradingDaysSince = (listDate: IsoDate | null): number | undefined =>
    listDate === null ? undefined : tradingDaysBetween(calendar, listDate, date)
  const indexLast = rows.index[0]
  return {
    date,
    stocks: rows.stocks.map((s) => {
      const avg = rows.averages.get(s.code)
      const aboveMa20 = avg && avg.n >= MA_DAYS ? s.close * s.adj_factor > avg.ma : null
      return {
        close: s.close,
        pre_close: s.pre_close,
        amount: s.amount,
        board: s.board as Board,
        is_st: s.is_st,
        is_suspended: s.is_suspended,
        above_ma20: aboveMa20,
        listed_days: tradingDaysSince(s.list_date),
      }
    }),
    amountHistory: rows.amounts,
    index:
      indexLast && indexLast.trade_date === date && rows.index.length >= MA_DAYS
        ? {
            code: REGIME_INDEX,
            close: indexLast.close,
            ma20: rows.index.reduce((s, r) => s + r.close, 0) / rows.index.length,
          }
        : null,
  }
}

/** The whole-market figures of one day that the regime's four items are computed from. */
export async function loadMarketInput(db: Db, date: IsoDate, calendar: readonly IsoDate[]): Promise<MarketInput> {
  const from = maWindowStart(date, calendar)
  const [stocks, averages, amounts, index] = await Promise.all([
    db
      .selectFrom('daily_bars as b')
      .innerJoin('securities as s', 's.code', 'b.code')
      .select([
        'b.code',
        'b.close',
        'b.pre_close',
        'b.amount',
        'b.adj_factor',
        'b.is_st',
        'b.is_suspended',
        's.board',
        's.list_date',
      ])
      .where('b.trade_date', '=', date)
      .execute(),
    db
      .selectFrom('daily_bars')
      .select((eb) => [
        'code',
        eb.fn.avg<number>(eb('close', '*', eb.ref('adj_factor'))).as('ma'),
        eb.fn.countAll<number>().as('n'),
      ])
      .where('trade_date', '>=', from)
      .where('trade_date', '<=', date)
      .where('is_suspended', '=', false)
      .groupBy('code')
      .execute(),
    db
      .selectFrom('daily_bars')
      .select((eb) => ['trade_date', eb.fn.sum<number>('amount').as('amount')])
      .where('trade_date', '>=', from)
      .where('trade_date', '<=', date)
      .groupBy('trade_date')
      .orderBy('trade_date')
      .execute(),
    loadIndexCloses(db, date),
  ])
  return assembleMarketInput(date, calendar, {
    stocks,
    averages: new Map(averages.map((a) => [a.code, { ma: Number(a.ma), n: Number(a.n) }])),
    amounts: amounts.map((a) => Number(a.amount)),
    index,
  })
}

/** The regime index's closes up to `date`, newest first, at most `limit`. */
export function loadIndexCloses(
  db: Db,
  date: IsoDate,
  limit = MA_DAYS,
): Promise<Array<{ trade_date: IsoDate; close: number }>> {
  return db
    .selectFrom('index_bars')
    .select(['trade_date', 'close'])
    .where('code', '=', REGIME_INDEX)
    .where('trade_date', '<=', date)
    .orderBy('trade_date', 'desc')
    .limit(limit)
    .execute()
}
