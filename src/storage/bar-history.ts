import { sql } from 'kysely'
import type { BarSeries } from '../domain/scoring.js'
import { lowerBound } from '../domain/stats.js'
import type { Db } from './db.js'
import type { IsoDate } from './schema.js'

/** A window of bars per code, as `MarketDataRepository.bars` gives it. */
export type BarsSource = (from: IsoDate, to: IsoDate) => Promise<Map<string, BarSeries>>

/** One code's bars as typed columns (off the JS heap, so a year of the market costs the collector nothing). */
interface CodeColumns {
  /** Index of each bar's date in the history's `days`, ascending. */
  readonly day: Int32Array
  readonly close: Float64Array
  readonly adj: Float64Array
  readonly amount: Float64Array
  readonly volume: Float64Array
  /** NaN where unknown. */
  readonly turnover: Float64Array
  readonly suspended: Uint8Array
  /** NaN where unknown. */
  readonly preClose: Float64Array
  readonly isSt: Uint8Array
  readonly open: Float64Array
  readonly high: Float64Array
  readonly low: Float64Array
}

const orNaN = (values: unknown): Float64Array =>
  Float64Array.from(values as Array<number | null>, (v) => (v === null ? Number.NaN : v))
const flags = (values: unknown): Uint8Array => Uint8Array.from(values as boolean[], (v) => (v ? 1 : 0))
const nullable = (v: number): number | null => (Number.isNaN(v) ? null : v)

/**
 * Every code's bars over a whole range, read once (one row per code), then cut into the windows a build asks for:
 * a replay's day-by-day builds read the history once instead of once a day. A window comes out exactly as
 * `MarketDataRepository.bars` computes it in SQL: closes forward-adjusted to the window's last day
 * (`close x adj / last adj`, the close itself where the factors are equal), `adjFactor` 1.
 */
export async function loadBarHistory(db: Db, from: IsoDate, to: IsoDate): Promise<BarsSource> {
  const { rows } = await sql<{ code: string; dates: IsoDate[] } & Record<keyof CodeColumns, unknown>>`
    select code,
      array_agg(trade_date::text order by trade_date) as dates,
      array_agg(close order by trade_date) as close,
      array_agg(adj_factor order by trade_date) as adj,
      array_agg(amount order by trade_date) as amount,
      array_agg(volume order by trade_date) as volume,
      array_agg(turnover_rate order by trade_date) as turnover,
      array_agg(is_suspended order by trade_date) as suspended,
      array_agg(pre_close order by trade_date) as "preClose",
      array_agg(is_st order by trade_date) as "isSt",
      array_agg(open order by trade_date) as open,
      array_agg(high order by trade_date) as high,
      array_agg(low order by trade_date) as low
    from daily_bars where trade_date >= ${from}::date and trade_date <= ${to}::date
    group by code order by code`.execute(db)
  const days = [...new Set(rows.flatMap((r) => r.dates as IsoDate[]))].sort()
  const dayIndex = new Map(days.map((d, i) => [d, i]))
  const history = new Map<string, CodeColumns>()
  for (const r of rows) {
    history.set(r.code, {
      day: Int32Array.from(r.dates as IsoDate[], (d) => dayIndex.get(d)!),
      close: Float64Array.from(r.close as number[]),
      adj: Float64Array.from(r.adj as number[]),
      amount: Float64Array.from(r.amount as number[]),
      volume: Float64Array.from(r.volume as number[]),
      turnover: orNaN(r.turnover),
      suspended: flags(r.suspended),
      preClose: orNaN(r.preClose),
      isSt: flags(r.isSt),
      open: Float64Array.from(r.open as number[]),
      high: Float64Array.from(r.high as number[]),
      low: Float64Array.from(r.low as number[]),
    })
  }
  rows.length = 0
  return async (windowFrom, windowTo) => {
    if (windowFrom < from || windowTo > to)
      throw new Error(`bar history holds ${from}..${to}; asked for ${windowFrom}..${windowTo}`)
    const first = lowerBound(days, windowFrom)
    const last = lowerBound(days, `${windowTo}\u0000`) // one past the window's last day
    const out = new Map<string, BarSeries>()
    for (const [code, c] of history) {
      const start = lowerBound(c.day, first)
      const end = lowerBound(c.day, last)
      if (end <= start) continue
      const n = end - start
      const lastAdj = c.adj[end - 1]!
      const close = new Array<number>(n)
      for (let i = start; i < end; i++) {
        const f = c.adj[i]!
        close[i - start] = f === lastAdj ? c.close[i]! : (c.close[i]! * f) / lastAdj
      }
      const suspended = new Array<boolean>(n)
      const turnover = new Array<number | null>(n)
      const dates = new Array<IsoDate>(n)
      for (let i = start; i < end; i++) {
        suspended[i - start] = c.suspended[i] === 1
        turnover[i - start] = nullable(c.turnover[i]!)
        dates[i - start] = days[c.day[i]!]!
      }
      out.set(code, {
        dates,
        close,
        adjFactor: new Array<number>(n).fill(1),
        amount: Array.from(c.amount.subarray(start, end)),
        volume: Array.from(c.volume.subarray(start, end)),
        turnover,
        suspended,
        preClose: nullable(c.preClose[end - 1]!),
        isSt: c.isSt[end - 1] === 1,
        open: c.open[end - 1]!,
        high: c.high[end - 1]!,
        low: c.low[end - 1]!,
      })
    }
    return out
  }
}
