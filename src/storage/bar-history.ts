import { sql } from 'kysely'
import type { BarSeries } from '../domain/scoring.js'
import type { Db } from './db.js'
import type { IsoDate } from './schema.js'

/** A window of bars per code, as `MarketDataRepository.bars` gives it. */
export type BarsSource = (from: IsoDate, to: IsoDate) => Promise<Map<string, BarSeries>>

interface CodeColumns {
  readonly dates: readonly IsoDate[]
  readonly close: Float64Array
  readonly adj: Float64Array
  readonly amount: Float64Array
  readonly volume: Float64Array
  readonly turnover: readonly (number | null)[]
  readonly suspended: readonly boolean[]
  readonly preClose: readonly (number | null)[]
  readonly isSt: readonly boolean[]
  readonly open: Float64Array
  readonly high: Float64Array
  readonly low: Float64Array
}

function lowerBound(dates: readonly string[], value: string): number {
  let lo = 0
  let hi = dates.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (dates[mid]! < value) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * Every code's bars over a whole range, read once (one row per code), then cut into the windows a build asks for:
 * a replay's day-by-day builds read the history once instead of once a day. A window comes out exactly as
 * `MarketDataRepository.bars` computes it in SQL: closes forward-adjusted to the window's last day
 * (`close x adj / last adj`, the close itself where the factors are equal), `adjFactor` 1.
 */
export async function loadBarHistory(db: Db, from: IsoDate, to: IsoDate): Promise<BarsSource> {
  const { rows } = await sql<{ code: string } & Record<keyof CodeColumns, unknown>>`
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
  const history = new Map<string, CodeColumns>()
  for (const r of rows) {
    history.set(r.code, {
      dates: r.dates as IsoDate[],
      close: Float64Array.from(r.close as number[]),
      adj: Float64Array.from(r.adj as number[]),
      amount: Float64Array.from(r.amount as number[]),
      volume: Float64Array.from(r.volume as number[]),
      turnover: r.turnover as (number | null)[],
      suspended: r.suspended as boolean[],
      preClose: r.preClose as (number | null)[],
      isSt: r.isSt as boolean[],
      open: Float64Array.from(r.open as number[]),
      high: Float64Array.from(r.high as number[]),
      low: Float64Array.from(r.low as number[]),
    })
  }
  return async (windowFrom, windowTo) => {
    if (windowFrom < from || windowTo > to)
      throw new Error(`bar history holds ${from}..${to}; asked for ${windowFrom}..${windowTo}`)
    const out = new Map<string, BarSeries>()
    for (const [code, c] of history) {
      const start = lowerBound(c.dates, windowFrom)
      const end = lowerBound(c.dates, `${windowTo}\u0000`)
      if (end <= start) continue
      const last = c.adj[end - 1]!
      const close = new Array<number>(end - start)
      for (let i = start; i < end; i++) {
        const f = c.adj[i]!
        close[i - start] = f === last ? c.close[i]! : (c.close[i]! * f) / last
      }
      out.set(code, {
        dates: c.dates.slice(start, end),
        close,
        adjFactor: new Array<number>(end - start).fill(1),
        amount: Array.from(c.amount.subarray(start, end)),
        volume: Array.from(c.volume.subarray(start, end)),
        turnover: c.turnover.slice(start, end),
        suspended: c.suspended.slice(start, end),
        preClose: c.preClose[end - 1] ?? null,
        isSt: c.isSt[end - 1]!,
        open: c.open[end - 1]!,
        high: c.high[end - 1]!,
        low: c.low[end - 1]!,
      })
    }
    return out
  }
}
