/**
 * Daily bars as integer fen: a random walk per stock (drift + beta x market + industry + theme + planted alpha +
 * noise, see signal.ts) held inside the board's daily limit, with some closes exactly at limit-up or limit-down
 * (many more for hot-theme members over the last trading days), IPO pops, suspensions and an occasional
 * ex-dividend step of the adjust factor. A day's close and volume are stepped together (the planted effects read
 * both); its open, high and low are drawn afterwards.
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
import type { ThemeMove } from './theme-moves.js'
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

/** Every stock drifts alike; cross-sectional differences in expected return come only from the planted signal. */
const COMMON_DRIFT = 0.0002
/**
 * The forced limit-up and limit-down probability of a day, alike: more limit-ups than limit-downs, paid back by a
 * lower drift on the other days, would skew a stock's returns right by its limit size, and a rank IC reads that
 * skew (ChiNext and STAR move 20%) as "low volatility pays", an effect nobody planted.
 */
const FORCED_LIMIT = 0.0065

/** A stock's options for its price path. `signal` 0 = no planted alpha, no hot-theme drift, no IPO pop. */
export interface PathOptions {
  readonly seed: number
  readonly sec: Security
  readonly profile: StockProfile
  readonly factors: MarketFactors
  readonly hotWeight: number
  readonly theme: ThemeMove
  readonly signal: number
  readonly days: number
}

/**
 * One stock's closes and volumes, one day at a time from its first bar, so that the planted effects of a day can
 * depend on every stock's bars before it. The close and the volume draw from two streams of their own; the rest of
 * each bar is drawn afterwards from a third (simulateBars), so the closes do not depend on it.
 */
export class ClosePath {
  readonly #rng: Random
  readonly #volumeRng: Random
  readonly #sec: Security
  readonly #profile: StockProfile
  readonly #market: Float64Array
  readonly #industry: Float64Array
  readonly #theme: ThemeMove
  readonly #pct: number
  readonly #hotStart: number
  readonly #hotLen: number
  readonly #hotWeight: number
  readonly #on: boolean
  readonly #signal: number
  readonly #exDay: number
  /** Day t's pre-close, adjust factor and close (fen), after `step(t)` or `replay(t)`. */
  pre = 0
  factor = 1
  close = 0
  /** Day t's volume in shares and whether it was a one-word board, after `step(t)`. */
  volume = 0
  oneWord = false

  constructor(o: PathOptions) {
    this.#rng = new Random(o.seed, 'bars', o.sec.code)
    this.#volumeRng = new Random(o.seed, 'volume', o.sec.code)
    this.#sec = o.sec
    this.#profile = o.profile
    this.#market = o.factors.market
    this.#industry = o.factors.industry.get(o.sec.industry.name)!
    this.#theme = o.theme
    this.#pct = limitPercent(o.sec.board, o.sec.isSt)
    this.#hotStart = Math.max(0, o.days - HOT_WINDOW)
    this.#hotLen = o.days - this.#hotStart
    this.#hotWeight = o.hotWeight
    this.#on = o.signal > 0
    this.#signal = o.signal
    this.#exDay = o.profile.exDividend?.day ?? -1
  }

  get pct(): number {
    return this.#pct
  }

  /** The hot-theme rally's strength on day t, 0..1 (0 without a signal or outside the last days). */
  hot(t: number): number {
    return this.#on && t >= this.#hotStart ? (this.#hotWeight * (t - this.#hotStart + 1)) / this.#hotLen : 0
  }

  /** True on the first three days of a new listing (with a signal): the IPO pop. */
  ipo(t: number): boolean {
    return this.#on && this.#sec.isNew && t - this.#sec.firstBar < 3
  }

  suspended(t: number): boolean {
    return t >= this.#sec.suspendFrom
  }

  /** Day t's close and volume, the planted alpha on t at `signal = 1` being g. */
  step(t: number, g: number): void {
    this.#open(t)
    const pre = this.pre
    this.oneWord = false
    this.volume = 0
    if (this.suspended(t)) {
      this.close = pre
      return
    }
    const rng = this.#rng
    const pct = this.#pct
    const { vol, beta } = this.#profile
    const step = limitStep(pre, pct)
    const up = pre + step
    const down = pre - step
    const hot = this.hot(t)
    const ipo = this.ipo(t)
    const theme = this.#theme.series ? this.#theme.weight * this.#theme.series[t]! : 0
    const r =
      COMMON_DRIFT +
      beta * this.#market[t]! +
      this.#industry[t]! +
      theme +
      this.#signal * g +
      vol * rng.normal() +
      hot * 0.02 +
      (ipo ? 0.08 : 0) +
      (pre < 200 ? 0.01 : 0)
    const u = rng.next()
    const pUp = ipo ? 0.6 : FORCED_LIMIT + hot * 0.3
    const pDown = hot > 0 ? 0.001 : FORCED_LIMIT
    let close: number
    if (u < pUp) close = up
    else if (u < pUp + pDown) close = down
    // log-symmetric, so a stock's median return does not fall with its volatility (compounding 1 + r does that,
    // and rank ICs read it as a volatility effect nobody planted)
    else close = clamp(Math.round(pre * Math.exp(r)), down, up)
    this.close = untied(close, pct, down, up)
    this.#stepVolume(this.close / pre - 1, this.close === up && hot > 0.3, hot, ipo)
  }

  #stepVolume(move: number, canBeOneWord: boolean, hot: number, ipo: boolean): void {
    const rng = this.#volumeRng
    const { floatShares, turnoverBase } = this.#profile
    this.oneWord = canBeOneWord && rng.chance(0.25)
    const turnover = Math.min(
      60,
      turnoverBase *
        Math.exp(rng.normal(0, 0.3)) *
        (1 + 5 * Math.abs(move)) *
        (1 + 2 * hot) *
        (ipo ? 8 : 1) *
        (this.oneWord ? 0.2 : 1),
    )
    this.volume = Math.max(100, Math.round((floatShares * turnover) / 10_000) * 100)
  }

  /** Day t again, with the close `step` gave it: sets its pre-close and adjust factor. */
  replay(t: number, close: number): void {
    this.#open(t)
    this.close = close
  }

  #open(t: number): void {
    const pct = this.#pct
    if (t === this.#sec.firstBar) {
      this.pre = untied(this.#profile.startFen, pct, 1, Number.MAX_SAFE_INTEGER)
    } else if (t === this.#exDay) {
      const last = this.close
      this.pre = untied(Math.max(1, last - this.#profile.exDividend!.fen), pct, 1, last)
      this.factor = (this.factor * last) / this.pre
    } else {
      this.pre = this.close
    }
  }
}

/** One stock's stepped days (from its first bar): what its ClosePath made. */
export interface SteppedDays {
  readonly close: Int32Array
  readonly volume: Float64Array
  readonly oneWord: Uint8Array
}

/**
 * Fills `out` with one stock's bars over the calendar from the days its ClosePath stepped: open, high and low
 * around each close, drawn from the stock's own bar-shape stream.
 */
export function simulateBars(out: BarSeries, o: PathOptions, stepped: SteppedDays): void {
  const { sec, profile } = o
  const path = new ClosePath(o)
  const rng = new Random(o.seed, 'bar-shape', sec.code)
  const pct = path.pct
  const { vol, floatShares } = profile
  out.first = sec.firstBar
  for (let t = sec.firstBar; t < out.close.length; t++) {
    path.replay(t, stepped.close[t]!)
    const pre = path.pre
    const close = path.close
    out.pre[t] = pre
    out.adj[t] = path.factor
    if (path.suspended(t)) {
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
    const move = close / pre - 1
    let open: number
    let high: number
    let low: number
    if (stepped.oneWord[t] === 1) {
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
    const volume = stepped.volume[t]!
    out.open[t] = open
    out.high[t] = high
    out.low[t] = low
    out.close[t] = close
    out.volume[t] = volume
    out.amount[t] = Math.round((volume * (open + high + low + close)) / 400)
    out.turnover[t] = (volume / floatShares) * 100
  }
}
