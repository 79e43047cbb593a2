/**
 * Daily bars as integer fen: a random walk per stock (drift + beta x market + industry + noise) held inside the
 * board's daily limit, with some closes exactly at limit-up or limit-down (many more for hot-theme members over
 * the last trading days), IPO pops, suspensions and an occasional ex-dividend step of the adjust factor.
 *
 * Limit prices are `pre_close x (1 +- r)` rounded to the fen. A pre_close that would put that product exactly on
 * half a fen is never produced (the close is moved by one fen), so every rounding convention gives the same limit.
 */
import type { Board } from '../../domain/codes.js'
import { narrowestLimitRatio } from '../../domain/limit-rules.js'
import { clamp } from './format.js'
import type { StockProfile } from './profiles.js'
import { Random } from './random.js'
import type { Security } from './securities.js'
import { STRENGTH } from './signal.js'
import { HOT_WINDOW } from './themes.js'

export interface MarketFactors {
  /** Common daily return shared by all stocks (times beta). */
  readonly market: Float64Array
  /** Daily return shared by an industry's stocks. */
  readonly industry: ReadonlyMap<string, Float64Array>
}

/** One stock's bars over the calendar; entries before `first` are unused. Reused from stock to stock. */
export interface BarSeries {
  first: number
  readonly open: Int32Array
  readonly high: Int32Array
  readonly low: Int32Array
  readonly close: Int32Array
  readonly pre: Int32Array
  readonly volume: Float64Array
  readonly amount: Float64Array
  readonly turnover: Float64Array
  readonly adj: Float64Array
  readonly suspended: Uint8Array
}

export function createSeries(days: number): BarSeries {
  return {
    first: 0,
    open: new Int32Array(days),
    high: new Int32Array(days),
    low: new Int32Array(days),
    close: new Int32Array(days),
    pre: new Int32Array(days),
    volume: new Float64Array(days),
    amount: new Float64Array(days),
    turnover: new Float64Array(days),
    adj: new Float64Array(days),
    suspended: new Uint8Array(days),
  }
}

export function marketFactors(seed: number, days: number, industries: readonly string[]): MarketFactors {
  const rng = new Random(seed, 'market')
  const market = new Float64Array(days)
  for (let t = 0; t < days; t++) market[t] = rng.normal(0.0003, 0.01)
  const industry = new Map<string, Float64Array>()
  for (const name of industries) {
    const own = new Random(seed, 'industry', name)
    const series = new Float64Array(days)
    for (let t = 0; t < days; t++) series[t] = own.normal(0, 0.006)
    industry.set(name, series)
  }
  return { market, industry }
}

/**
 * The limit ratio in whole percent (5, 10, 20, 30): the narrowest the dated rules allow over the demo calendar's
 * span (2024-2026, see calendar.ts), so every simulated day respects the rule in force on it.
 */
export function limitPercent(board: Board, isSt: boolean): number {
  return Math.round(narrowestLimitRatio(board, isSt, '2024-01-01', '2026-12-31') * 100)
}

/** True when `pre x (1 +- pct%)` lands exactly on half a fen. */
export function isHalfFenTie(preFen: number, pct: number): boolean {
  return (preFen * pct) % 100 === 50
}

/** The distance from pre_close to either limit, in fen (ties never occur, see isHalfFenTie). */
export function limitStep(preFen: number, pct: number): number {
  return Math.round((preFen * pct) / 100)
}

/** `fen`, or a neighbour inside [lo, hi] when `fen` would make the next day's limits a half-fen tie. */
function untied(fen: number, pct: number, lo: number, hi: number): number {
  if (!isHalfFenTie(fen, pct)) return fen
  return fen + 1 <= hi ? fen + 1 : Math.max(lo, fen - 1)
}

const BASE_LIMIT_UP = 0.009
const BASE_LIMIT_DOWN = 0.004

/** The planted structure for one stock (signal.ts): its theme co-movement and its planted expected return. */
export interface StockSignal {
  /** 0 = no signal: no planted alpha, no hot-theme drift, no IPO pop. */
  readonly signal: number
  readonly themeMove: Float64Array
  readonly factor: Float64Array
}

/** Every stock drifts alike; cross-sectional differences in expected return come only from the planted signal. */
const COMMON_DRIFT = 0.0002

/** Fills `out` with the bars of one stock. */
export function simulateBars(
  out: BarSeries,
  seed: number,
  sec: Security,
  profile: StockProfile,
  factors: MarketFactors,
  hotWeight: number,
  planted: StockSignal,
): void {
  const rng = new Random(seed, 'bars', sec.code)
  const days = out.close.length
  const pct = limitPercent(sec.board, sec.isSt)
  const industry = factors.industry.get(sec.industry.name)!
  const hotStart = Math.max(0, days - HOT_WINDOW)
  const hotLen = days - hotStart
  const { vol, beta, floatShares, turnoverBase } = profile
  const on = planted.signal > 0
  const alphaScale = planted.signal * STRENGTH * vol
  const exDay = profile.exDividend?.day ?? -1
  // The forced limit days add (up - down) x limit on average; the drift gives it back, so the market does not
  // rise just because limit-ups outnumber limit-downs.
  const mean = COMMON_DRIFT - ((BASE_LIMIT_UP - BASE_LIMIT_DOWN) * pct) / 100
  let factor = 1
  out.first = sec.firstBar
  for (let t = sec.firstBar; t < days; t++) {
    let pre: number
    if (t === sec.firstBar) {
      pre = untied(profile.startFen, pct, 1, Number.MAX_SAFE_INTEGER)
    } else if (t === exDay) {
      const last = out.close[t - 1]!
      pre = untied(Math.max(1, last - profile.exDividend!.fen), pct, 1, last)
      factor = (factor * last) / pre
    } else {
      pre = out.close[t - 1]!
    }
    out.pre[t] = pre
    out.adj[t] = factor
    if (t >= sec.suspendFrom) {
      out.open[t] = pre
      out.high[t] = pre
      out.low[t] = pre
      out.close[t] = pre
      out.volume[t] = 0
      out.amount[t] = 0
      out.turnover[t] = 0
      out.suspended[t] = 1
      continue
    }
    out.suspended[t] = 0
    const step = limitStep(pre, pct)
    const up = pre + step
    const down = pre - step
    const hot = on && t >= hotStart ? (hotWeight * (t - hotStart + 1)) / hotLen : 0
    const ipo = on && sec.isNew && t - sec.firstBar < 3
    const r =
      mean +
      beta * factors.market[t]! +
      industry[t]! +
      planted.themeMove[t]! +
      alphaScale * planted.factor[t]! +
      vol * rng.normal() +
      hot * 0.02 +
      (ipo ? 0.08 : 0) +
      (pre < 200 ? 0.01 : 0)
    const u = rng.next()
    const pUp = ipo ? 0.6 : BASE_LIMIT_UP + hot * 0.3
    const pDown = hot > 0 ? 0.001 : BASE_LIMIT_DOWN
    let close: number
    let atLimit = false
    if (u < pUp) {
      close = up
      atLimit = true
    } else if (u < pUp + pDown) {
      close = down
    } else {
      close = clamp(Math.round(pre * (1 + r)), down, up)
    }
    close = untied(close, pct, down, up)
    atLimit = atLimit && close === up
    const move = close / pre - 1
    let open: number
    let high: number
    let low: number
    const oneWord = atLimit && hot > 0.3 && rng.chance(0.25)
    if (oneWord) {
      open = up
      high = up
      low = up
    } else {
      open = clamp(Math.round(pre * (1 + rng.normal(0, vol * 0.35) + 0.25 * move)), down, up)
      const top = Math.max(open, close)
      const bottom = Math.min(open, close)
      high = Math.min(up, top + Math.round(top * Math.abs(rng.normal()) * vol * 0.45))
      low = Math.max(down, 1, bottom - Math.round(bottom * Math.abs(rng.normal()) * vol * 0.45))
    }
    const turnover = Math.min(
      60,
      turnoverBase *
        Math.exp(rng.normal(0, 0.3)) *
        (1 + 5 * Math.abs(move)) *
        (1 + 2 * hot) *
        (ipo ? 8 : 1) *
        (oneWord ? 0.2 : 1),
    )
    const volume = Math.max(100, Math.round((floatShares * turnover) / 10_000) * 100)
    out.open[t] = open
    out.high[t] = high
    out.low[t] = low
    out.close[t] = close
    out.volume[t] = volume
    out.amount[t] = Math.round((volume * (open + high + low + close)) / 400)
    out.turnover[t] = (volume / floatShares) * 100
  }
}
