/** A stock's chart from its stored bars: forward-adjusted candles with their 20- and 60-day moving averages. */

export interface StoredBar {
  readonly trade_date: string
  readonly open: number
  readonly high: number
  readonly low: number
  readonly close: number
  readonly volume: number
  readonly amount: number
  readonly adj_factor: number
  readonly is_suspended: boolean
}

export interface Candle {
  readonly date: string
  readonly open: number
  readonly high: number
  readonly low: number
  readonly close: number
  readonly volume: number
  readonly amount: number
  readonly ma20: number | null
  readonly ma60: number | null
}

export const MA_SHORT = 20
export const MA_LONG = 60

const round = (v: number, digits: number): number => Number(v.toFixed(digits))

function movingAverage(closes: readonly number[], i: number, n: number): number | null {
  if (i + 1 < n) return null
  let sum = 0
  for (let k = i - n + 1; k <= i; k++) sum += closes[k]!
  return round(sum / n, 4)
}

/**
 * The last `days` traded bars (oldest first) of `bars` (oldest first, with up to MA_LONG - 1 earlier bars so the
 * averages start filled): prices forward-adjusted (前复权) to the last bar's factor, so the last close is the
 * quoted one and earlier prices are comparable with it. Suspended days carry no trade and are left out.
 */
export function forwardAdjustedCandles(bars: readonly StoredBar[], days: number): Candle[] {
  const traded = bars.filter((b) => !b.is_suspended && b.adj_factor > 0)
  if (traded.length === 0) return []
  const base = traded.at(-1)!.adj_factor
  const adjust = (price: number, factor: number) => round((price * factor) / base, 4)
  const closes = traded.map((b) => (b.close * b.adj_factor) / base)
  const first = Math.max(0, traded.length - days)
  const out: Candle[] = []
  for (let i = first; i < traded.length; i++) {
    const b = traded[i]!
    out.push({
      date: b.trade_date,
      open: adjust(b.open, b.adj_factor),
      high: adjust(b.high, b.adj_factor),
      low: adjust(b.low, b.adj_factor),
      close: adjust(b.close, b.adj_factor),
      volume: b.volume,
      amount: b.amount,
      ma20: movingAverage(closes, i, MA_SHORT),
      ma60: movingAverage(closes, i, MA_LONG),
    })
  }
  return out
}
