/**
 * The score's signals (PLAN_VERSION 3): each a pure function of what was known at the close of T, named for what a
 * higher value means. A signal whose inputs are missing is `null` for that stock (never imputed as points); the
 * score weights only what each stock has (see `combineSignals`). Signs are not assumed here: each signal's weight,
 * sign included, is learned walk-forward from the plan's own track record (`signal-weights.ts`).
 */

export const SIGNAL_NAMES = [
  'reversal_5d',
  'reversal_20d',
  'momentum_6m_skip_1m',
  'turnover',
  'abnormal_turnover',
  'volatility',
  'idio_volatility',
  'size',
  'value_ep',
  'value_bp',
  'quality_roe',
  'cash_conversion',
  'heat',
  'trend',
  'liquidity',
  'upside',
  'max_return',
  'intraday_return',
  'amount_volatility',
  'price_volume_corr',
  'high_distance',
] as const

export type SignalName = (typeof SIGNAL_NAMES)[number]
export type SignalValues = Partial<Record<SignalName, number>>

/** What each signal measures, in words (README, tear sheet, viewer glossary). */
export const SIGNAL_DESCRIPTIONS: Readonly<Record<SignalName, string>> = Object.freeze({
  reversal_5d: 'minus the 5-day return (short-term reversal)',
  reversal_20d: 'minus the 20-day return (one-month reversal)',
  momentum_6m_skip_1m: 'return from 120 to 20 trading days ago (medium-term momentum skipping the last month)',
  turnover: '20-day mean turnover rate (needs turnover_rate on the bars)',
  abnormal_turnover: '5-day mean volume over 60-day mean volume',
  volatility: 'standard deviation of the last 20 daily returns',
  idio_volatility: 'standard deviation of the residual of 60 daily returns regressed on the benchmark index',
  size: 'log total market value (daily_basic); log 60-day mean traded value on days without market values',
  value_ep: 'earnings yield, 1 / PE(TTM) (missing for loss-makers and without daily_basic)',
  value_bp: 'book yield, 1 / PB (without daily_basic: missing)',
  quality_roe: 'annualised ROE of the latest report announced by T',
  cash_conversion: 'operating cash flow over net profit of the latest report announced by T',
  heat: 'theme heat x transmission of the strongest theme edge (missing when no themes are loaded)',
  trend: 'MA20 over MA60 minus 1',
  liquidity: 'log 20-day mean traded value',
  upside: 'neutral valuation over price minus 1 (missing without a valuation)',
  max_return: 'largest daily return of the last 20 (lottery demand: a high one is overpriced)',
  intraday_return: "sum of the last 20 days' log returns from open to close (needs the bars' opens)",
  amount_volatility: "standard deviation over mean of the last 20 days' traded value (erratic attention)",
  price_volume_corr: "correlation of the last 20 closes with the same days' traded value",
  high_distance: 'close over the highest close of the last 120 days minus 1 (how far below its high)',
})

/** Look-back lengths, in trading days. */
export const SIGNAL_WINDOWS = Object.freeze({
  reversalShort: 5,
  reversalLong: 20,
  momentumFrom: 120,
  momentumSkip: 20,
  turnover: 20,
  abnormalShort: 5,
  abnormalLong: 60,
  volatility: 20,
  idioVolatility: 60,
  sizeProxy: 60,
  maShort: 20,
  maLong: 60,
  amount: 20,
  lottery: 20,
  high: 120,
  /** The longest look-back: a build reads this many trading days of bars. */
  history: 121,
})

/** Numbers per bar: a JS array, or a typed array a replay cuts from its history without copying. */
export type NumberColumn = readonly number[] | Float64Array
/** Per bar, suspended or not: booleans, or 0/1 from a replay's history. */
export type FlagColumn = readonly boolean[] | Uint8Array
/** Turnover per bar: null (or NaN in a typed column) where unknown. */
export type OptionalColumn = readonly (number | null)[] | Float64Array

/** A code's bars as columns, oldest first, closes forward-adjusted, volumes on the last day's share count. */
export interface SignalBars {
  readonly dates: readonly string[]
  readonly close: NumberColumn
  readonly amount: NumberColumn
  readonly suspended: FlagColumn
  readonly volume?: NumberColumn
  readonly turnover?: OptionalColumn
  /** Each bar's close over its own open (no adjustment needed: both are the same day's prices); absent = unknown. */
  readonly intraday?: NumberColumn
}

/** What a stock's signals read besides its bars, all as known at T (null: unknown). */
export interface SignalFacts {
  readonly totalMv: number | null
  readonly peTtm: number | null
  readonly pb: number | null
  readonly roe: number | null
  readonly cashConversion: number | null
  readonly upside: number | null
  /** heat / 100 x transmission of the strongest edge; 0 for a stock without an edge when themes exist. */
  readonly heat: number | null
}

const W = SIGNAL_WINDOWS

function meanOf(values: ArrayLike<number>, from = 0, to = values.length): number | null {
  if (to <= from) return null
  let s = 0
  for (let i = from; i < to; i++) s += values[i]!
  return s / (to - from)
}

function sdOf(values: ArrayLike<number>, count: number): number | null {
  const m = meanOf(values, 0, count)
  if (m === null || count < 2) return null
  let ss = 0
  for (let i = 0; i < count; i++) ss += (values[i]! - m) ** 2
  return Math.sqrt(ss / (count - 1))
}

function ret(close: NumberColumn, back: number): number | null {
  const n = close.length
  if (n <= back) return null
  const base = close[n - 1 - back]!
  return base > 0 ? close[n - 1]! / base - 1 : null
}

/**
 * Scratch columns for one stock's returns (a build computes 5,000 stocks' signals in one synchronous pass, so one
 * set is enough and no stock allocates its own).
 */
const scratch = {
  dates: new Array<string>(SIGNAL_WINDOWS.history),
  returns: new Float64Array(SIGNAL_WINDOWS.history),
  xs: new Float64Array(SIGNAL_WINDOWS.history),
  ys: new Float64Array(SIGNAL_WINDOWS.history),
}

function grow(length: number): void {
  if (scratch.returns.length >= length) return
  scratch.dates = new Array<string>(length)
  scratch.returns = new Float64Array(length)
  scratch.xs = new Float64Array(length)
  scratch.ys = new Float64Array(length)
}

/**
 * Daily returns of the last `days` bars whose day and the day before were traded, into `scratch.returns` (their
 * dates into `scratch.dates`); returns how many.
 */
function dailyReturns(bars: SignalBars, days: number): number {
  const n = bars.close.length
  grow(days)
  let count = 0
  for (let i = Math.max(1, n - days); i < n; i++) {
    if (bars.suspended[i] || bars.suspended[i - 1]) continue
    const prev = bars.close[i - 1]!
    if (prev <= 0) continue
    scratch.dates[count] = bars.dates[i]!
    scratch.returns[count] = bars.close[i]! / prev - 1
    count++
  }
  return count
}

/** Count and sum of the known values of the last `days` bars that were traded (null and NaN are unknown). */
function tradedSum(values: OptionalColumn, suspended: FlagColumn, days: number): { count: number; sum: number } {
  let count = 0
  let sum = 0
  for (let i = Math.max(0, values.length - days); i < values.length; i++) {
    const v = values[i]
    if (!suspended[i] && v !== null && v !== undefined && Number.isFinite(v)) {
      count++
      sum += v
    }
  }
  return { count, sum }
}

/** Mean volume of the traded bars among the last `long` bars, and of the last `short` of those traded bars. */
function volumeMeans(volume: NumberColumn, suspended: FlagColumn, long: number, short: number) {
  const from = Math.max(0, volume.length - long)
  let traded = 0
  for (let i = from; i < volume.length; i++) if (!suspended[i] && !Number.isNaN(volume[i]!)) traded++
  let seen = 0
  let sumLong = 0
  let sumShort = 0
  for (let i = from; i < volume.length; i++) {
    if (suspended[i] || Number.isNaN(volume[i]!)) continue
    sumLong += volume[i]!
    if (seen >= traded - short) sumShort += volume[i]!
    seen++
  }
  return {
    traded,
    long: traded === 0 ? null : sumLong / traded,
    short: traded === 0 ? null : sumShort / Math.min(short, traded),
  }
}

/** Residual volatility of the `count` returns in scratch against the index's returns on the same dates. */
function residualSd(count: number, index: ReadonlyMap<string, number>): number | null {
  const { xs, ys } = scratch
  let m = 0
  for (let i = 0; i < count; i++) {
    const x = index.get(scratch.dates[i]!)
    if (x === undefined) continue
    xs[m] = x
    ys[m] = scratch.returns[i]!
    m++
  }
  if (m < (W.idioVolatility * 2) / 3) return null
  const mx = meanOf(xs, 0, m)!
  const my = meanOf(ys, 0, m)!
  let sxy = 0
  let sxx = 0
  for (let i = 0; i < m; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my)
    sxx += (xs[i]! - mx) ** 2
  }
  const beta = sxx > 0 ? sxy / sxx : 0
  for (let i = 0; i < m; i++) ys[i] = ys[i]! - my - beta * (xs[i]! - mx)
  return sdOf(ys, m)
}

/** The last `days` traded bars' positions (oldest first), skipping suspended bars and NaN in `column`. */
function tradedPositions(column: NumberColumn, suspended: FlagColumn, days: number): number[] {
  const out: number[] = []
  for (let i = column.length - 1; i >= 0 && out.length < days; i--)
    if (!suspended[i] && Number.isFinite(column[i]!)) out.push(i)
  return out.reverse()
}

/**
 * The lottery and attention signals (issue 38: what the top of the investable names earns): the largest daily
 * return, the open-to-close drift, how erratic the traded value is, whether price and traded value move together,
 * and the distance below the recent high. Traded value, not volume, so a bonus issue inside the window changes none.
 */
function lotterySignals(bars: SignalBars, returns: number) {
  const need = (W.lottery * 2) / 3
  let max: number | null = null
  if (returns >= need) {
    max = Number.NEGATIVE_INFINITY
    for (let i = 0; i < returns; i++) max = Math.max(max, scratch.returns[i]!)
  }
  let intraday: number | null = null
  if (bars.intraday) {
    const at = tradedPositions(bars.intraday, bars.suspended, W.lottery)
    const valid = at.filter((i) => bars.intraday![i]! > 0)
    if (valid.length >= need) intraday = valid.reduce((s, i) => s + Math.log(bars.intraday![i]!), 0)
  }
  const at = tradedPositions(bars.amount, bars.suspended, W.lottery)
  let amountVolatility: number | null = null
  let priceVolume: number | null = null
  if (at.length >= need) {
    const amounts = at.map((i) => bars.amount[i]!)
    const m = meanOf(amounts)!
    const sd = sdOf(amounts, amounts.length)
    if (m > 0 && sd !== null) amountVolatility = sd / m
    priceVolume = correlation(
      at.map((i) => bars.close[i]!),
      amounts,
    )
  }
  const closes = tradedPositions(bars.close, bars.suspended, W.high)
  let high = 0
  for (const i of closes) high = Math.max(high, bars.close[i]!)
  const last = bars.close[bars.close.length - 1]!
  const highDistance =
    closes.length >= need && high > 0 && !bars.suspended[bars.close.length - 1] ? last / high - 1 : null
  return { max, intraday, amountVolatility, priceVolume, highDistance }
}

function correlation(xs: readonly number[], ys: readonly number[]): number | null {
  const mx = meanOf(xs)!
  const my = meanOf(ys)!
  let sxy = 0
  let sxx = 0
  let syy = 0
  for (let i = 0; i < xs.length; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my)
    sxx += (xs[i]! - mx) ** 2
    syy += (ys[i]! - my) ** 2
  }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : null
}

const finite = (v: number | null | undefined): number | null =>
  v === null || v === undefined || !Number.isFinite(v) ? null : v

/**
 * One stock's raw signal values at T (the last bar). `indexReturns` are the benchmark's daily returns by date;
 * `size` is the market value when the facts have it and the traded-value proxy otherwise (the cross-section
 * picks one of the two per day: `combineSignals`).
 */
export function stockSignals(
  bars: SignalBars,
  facts: SignalFacts,
  indexReturns: ReadonlyMap<string, number>,
): Record<SignalName | 'size_proxy', number | null> {
  const { close } = bars
  const n = close.length
  const r5 = ret(close, W.reversalShort)
  const r20 = ret(close, W.reversalLong)
  // the return from 120 to 20 bars ago: close 20 bars back over close 120 bars back
  const skipBase = n > W.momentumFrom ? close[n - 1 - W.momentumFrom]! : null
  const momentum = skipBase === null || !(skipBase > 0) ? null : close[n - 1 - W.momentumSkip]! / skipBase - 1
  const turnovers = bars.turnover ? tradedSum(bars.turnover, bars.suspended, W.turnover) : { count: 0, sum: 0 }
  const volume = bars.volume
    ? volumeMeans(bars.volume, bars.suspended, W.abnormalLong, W.abnormalShort)
    : { traded: 0, long: null, short: null }
  const volLong = volume.traded >= (W.abnormalLong * 2) / 3 ? volume.long : null
  const volShort = volume.traded >= W.abnormalShort ? volume.short : null
  const returns20 = dailyReturns(bars, W.volatility)
  const volatility = returns20 >= (W.volatility * 2) / 3 ? sdOf(scratch.returns, returns20) : null
  const lottery = lotterySignals(bars, returns20)
  const idioVolatility = residualSd(dailyReturns(bars, W.idioVolatility), indexReturns)
  const amount20 = tradedSum(bars.amount, bars.suspended, W.amount)
  const amount60 = tradedSum(bars.amount, bars.suspended, W.sizeProxy)
  const amountMean20 = amount20.count === 0 ? null : amount20.sum / amount20.count
  const amountMean60 = amount60.count === 0 ? null : amount60.sum / amount60.count
  const ma20 = n >= W.maShort ? meanOf(close, n - W.maShort, n) : null
  const ma60 = n >= W.maLong ? meanOf(close, n - W.maLong, n) : null
  const positive = (v: number | null): number | null => (v !== null && v > 0 ? v : null)
  return {
    reversal_5d: r5 === null ? null : -r5,
    reversal_20d: r20 === null ? null : -r20,
    momentum_6m_skip_1m: momentum,
    turnover: turnovers.count >= W.turnover / 2 ? turnovers.sum / turnovers.count : null,
    abnormal_turnover: volShort !== null && volLong !== null && volLong > 0 ? volShort / volLong : null,
    volatility,
    idio_volatility: idioVolatility,
    size: positive(facts.totalMv) === null ? null : Math.log(facts.totalMv!),
    size_proxy: positive(amountMean60) === null ? null : Math.log(amountMean60!),
    value_ep: positive(facts.peTtm) === null ? null : 1 / facts.peTtm!,
    value_bp: positive(facts.pb) === null ? null : 1 / facts.pb!,
    quality_roe: finite(facts.roe),
    cash_conversion: finite(facts.cashConversion),
    heat: finite(facts.heat),
    trend: ma20 !== null && ma60 !== null && ma60 > 0 ? ma20 / ma60 - 1 : null,
    liquidity: positive(amountMean20) === null ? null : Math.log(amountMean20!),
    upside: finite(facts.upside),
    max_return: lottery.max,
    intraday_return: lottery.intraday,
    amount_volatility: lottery.amountVolatility,
    price_volume_corr: lottery.priceVolume,
    high_distance: lottery.highDistance,
  }
}

/**
 * Cross-sectional normalisation: each signal's percentile rank among the stocks that have it, mapped to
 * [-1, 1] (ties share their rank). `size` uses market values when at least half the stocks have one that day,
 * else the traded-value proxy for every stock, so one day never mixes the two scales.
 */
export function normaliseSignals(
  raw: ReadonlyMap<string, Record<SignalName | 'size_proxy', number | null>>,
): Map<string, SignalValues> {
  return signalsByCode(normaliseSignalColumns(raw))
}

/** A day's normalised signals as columns: the codes in order, and per signal each code's value (NaN without it). */
export interface SignalColumns {
  readonly codes: readonly string[]
  readonly values: Readonly<Record<SignalName, Float64Array>>
}

/** Each code's signals as an object holding the signals it has, in `SIGNAL_NAMES` order. */
export function signalsByCode({ codes, values }: SignalColumns): Map<string, SignalValues> {
  const columns = SIGNAL_NAMES.map((name) => values[name])
  const out = new Map<string, SignalValues>()
  for (let i = 0; i < codes.length; i++) {
    const own: Partial<Record<SignalName, number>> = {}
    for (let s = 0; s < SIGNAL_NAMES.length; s++) {
      const value = columns[s]![i]!
      if (!Number.isNaN(value)) own[SIGNAL_NAMES[s]!] = value
    }
    out.set(codes[i]!, own)
  }
  return out
}

/** `normaliseSignals` as columns (the signal ICs read them without an object per stock). */
export function normaliseSignalColumns(
  raw: ReadonlyMap<string, Record<SignalName | 'size_proxy', number | null>>,
): SignalColumns {
  const codes = [...raw.keys()]
  const rows = [...raw.values()]
  const n = rows.length
  let withMv = 0
  for (const values of rows) if (values.size !== null) withMv++
  const sizeKey = withMv * 2 >= n && withMv > 0 ? 'size' : 'size_proxy'
  // per signal, each row's percentile (NaN without the signal): typed columns and one index sort per signal, where
  // a map and a [code, value] pair per stock per signal were a quarter of the day's scoring
  const percentiles: Array<Float64Array | null> = []
  const column = new Float64Array(n)
  const order = new Int32Array(n)
  for (const name of SIGNAL_NAMES) {
    const key = name === 'size' ? sizeKey : name
    let m = 0
    for (let i = 0; i < n; i++) {
      const v = rows[i]![key]
      if (v !== null && Number.isFinite(v)) {
        column[i] = v
        order[m++] = i
      }
    }
    if (m < 2) {
      percentiles.push(null) // one stock has no cross-section to rank in
      continue
    }
    const present = order.subarray(0, m).sort((a, b) => column[a]! - column[b]!)
    const pct = new Float64Array(n).fill(Number.NaN)
    let i = 0
    while (i < m) {
      let j = i
      while (j + 1 < m && column[present[j + 1]!] === column[present[i]!]) j++
      const shared = (i + j) / 2 / (m - 1) // ties share their rank
      for (let k = i; k <= j; k++) pct[present[k]!] = shared
      i = j + 1
    }
    percentiles.push(pct)
  }
  const values = {} as Record<SignalName, Float64Array>
  for (let s = 0; s < SIGNAL_NAMES.length; s++) {
    const pct = percentiles[s]
    const value = new Float64Array(n).fill(Number.NaN)
    if (pct) for (let i = 0; i < n; i++) value[i] = 2 * pct[i]! - 1
    values[SIGNAL_NAMES[s]!] = value
  }
  return { codes, values }
}
