import type { Board } from '../domain/codes.js'
import type { MarketInput } from '../domain/regime.js'
import type { Db } from './db.js'
import type { IsoDate } from './schema.js'

export const REGIME_INDEX = '000300.SH'
const MA_DAYS = 20

/** The whole-market figures of one day that the regime's four items are computed from. */
export async function loadMarketInput(db: Db, date: IsoDate, calendar: readonly IsoDate[]): Promise<MarketInput> {
  const window = calendar.filter((d) => d <= date).slice(-MA_DAYS)
  const from = window[0] ?? date
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
    db
      .selectFrom('index_bars')
      .select(['trade_date', 'close'])
      .where('code', '=', REGIME_INDEX)
      .where('trade_date', '<=', date)
      .orderBy('trade_date', 'desc')
      .limit(MA_DAYS)
      .execute(),
  ])
  const ma = new Map(averages.map((a) => [a.code, a]))
  const tradingDaysSince = (listDate: IsoDate | null): number | undefined =>
    listDate === null ? undefined : calendar.filter((d) => d >= listDate && d <= date).length
  const indexLast = index[0]
  return {
    date,
    stocks: stocks.map((s) => {
      const avg = ma.get(s.code)
      const aboveMa20 = avg && Number(avg.n) >= MA_DAYS ? s.close * s.adj_factor > Number(avg.ma) : null
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
    amountHistory: amounts.map((a) => Number(a.amount)),
    index:
      indexLast && indexLast.trade_date === date && index.length >= MA_DAYS
        ? { code: REGIME_INDEX, close: indexLast.close, ma20: index.reduce((s, r) => s + r.close, 0) / index.length }
        : null,
  }
}
