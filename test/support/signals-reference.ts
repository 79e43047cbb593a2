/**
 * The bar-derived signals as `stockSignals` computed them before issue 28 made them allocation-free (arrays per
 * window, filters, slices): the oracle the faster code must match bit for bit. Frozen; not used by the service.
 */
import { percentileRanks } from '../../src/domain/rank.js'
import { SIGNAL_NAMES, SIGNAL_WINDOWS, type SignalName, type SignalValues } from '../../src/domain/signals.js'

const W = SIGNAL_WINDOWS

interface PlainBars {
  readonly dates: readonly string[]
  readonly close: readonly number[]
  readonly amount: readonly number[]
  readonly suspended: readonly boolean[]
  readonly volume?: readonly number[]
  readonly turnover?: readonly (number | null)[]
}

function meanOf(values: readonly number[]): number | null {
  if (values.length === 0) return null
  let s = 0
  for (const v of values) s += v
  return s / values.length
}

function sdOf(values: readonly number[]): number | null {
  const m = meanOf(values)
  if (m === null || values.length < 2) return null
  let ss = 0
  for (const v of values) ss += (v - m) ** 2
  return Math.sqrt(ss / (values.length - 1))
}

function ret(close: readonly number[], back: number): number | null {
  const n = close.length
  if (n <= back) return null
  const base = close[n - 1 - back]!
  return base > 0 ? close[n - 1]! / base - 1 : null
}

/** Daily returns of the last `days` bars whose day and the day before were traded, with their dates. */
function dailyReturns(bars: PlainBars, days: number): { dates: string[]; values: number[] } {
  const n = bars.close.length
  const dates: string[] = []
  const values: number[] = []
  for (let i = Math.max(1, n - days); i < n; i++) {
    if (bars.suspended[i] || bars.suspended[i - 1]) continue
    const prev = bars.close[i - 1]!
    if (prev <= 0) continue
    dates.push(bars.dates[i]!)
    values.push(bars.close[i]! / prev - 1)
  }
  return { dates, values }
}

function tradedTail(values: readonly number[], suspended: readonly boolean[], days: number): number[] {
  const out: number[] = []
  for (let i = Math.max(0, values.length - days); i < values.length; i++) if (!suspended[i]) out.push(values[i]!)
  return out
}

function residualSd(stock: { dates: string[]; values: number[] }, index: ReadonlyMap<string, number>): number | null {
  const xs: number[] = []
  const ys: number[] = []
  for (let i = 0; i < stock.dates.length; i++) {
    const x = index.get(stock.dates[i]!)
    if (x === undefined) continue
    xs.push(x)
    ys.push(stock.values[i]!)
  }
  if (xs.length < (W.idioVolatility * 2) / 3) return null
  const mx = meanOf(xs)!
  const my = meanOf(ys)!
  let sxy = 0
  let sxx = 0
  for (let i = 0; i < xs.length; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my)
    sxx += (xs[i]! - mx) ** 2
  }
  const beta = sxx > 0 ? sxy / sxx : 0
  return sdOf(ys.map((y, i) => y - my - beta * (xs[i]! - mx)))
}

export function referenceBarSignals(bars: PlainBars, indexReturns: ReadonlyMap<string, number>) {
  const { close } = bars
  const n = close.length
  const r5 = ret(close, W.reversalShort)
  const r20 = ret(close, W.reversalLong)
  const skip = n > W.momentumFrom ? close.slice(0, n - W.momentumSkip) : null
  const momentum = skip ? ret(skip, W.momentumFrom - W.momentumSkip) : null
  const turnovers = bars.turnover
    ? tradedTail(
        bars.turnover.map((t) => t ?? Number.NaN),
        bars.suspended,
        W.turnover,
      ).filter((t) => Number.isFinite(t))
    : []
  const volume = bars.volume ? tradedTail(bars.volume, bars.suspended, W.abnormalLong) : []
  const volLong = volume.length >= (W.abnormalLong * 2) / 3 ? meanOf(volume) : null
  const volShort = volume.length >= W.abnormalShort ? meanOf(volume.slice(-W.abnormalShort)) : null
  const returns20 = dailyReturns(bars, W.volatility)
  const returns60 = dailyReturns(bars, W.idioVolatility)
  const amount20 = meanOf(tradedTail(bars.amount, bars.suspended, W.amount))
  const amount60 = meanOf(tradedTail(bars.amount, bars.suspended, W.sizeProxy))
  const ma20 = n >= W.maShort ? meanOf(close.slice(n - W.maShort)) : null
  const ma60 = n >= W.maLong ? meanOf(close.slice(n - W.maLong)) : null
  const positive = (v: number | null): number | null => (v !== null && v > 0 ? v : null)
  return {
    reversal_5d: r5 === null ? null : -r5,
    reversal_20d: r20 === null ? null : -r20,
    momentum_6m_skip_1m: momentum,
    turnover: turnovers.length >= W.turnover / 2 ? meanOf(turnovers) : null,
    abnormal_turnover: volShort !== null && volLong !== null && volLong > 0 ? volShort / volLong : null,
    volatility: returns20.values.length >= (W.volatility * 2) / 3 ? sdOf(returns20.values) : null,
    idio_volatility: residualSd(returns60, indexReturns),
    size_proxy: positive(amount60) === null ? null : Math.log(amount60!),
    trend: ma20 !== null && ma60 !== null && ma60 > 0 ? ma20 / ma60 - 1 : null,
    liquidity: positive(amount20) === null ? null : Math.log(amount20!),
  }
}

/** `normaliseSignals` as it was before it ranked typed columns: a map and a [code, value] pair per signal. Frozen. */
export function referenceNormaliseSignals(
  raw: ReadonlyMap<string, Record<SignalName | 'size_proxy', number | null>>,
): Map<string, SignalValues> {
  const out = new Map<string, SignalValues>()
  for (const code of raw.keys()) out.set(code, {})
  let withMv = 0
  for (const values of raw.values()) if (values.size !== null) withMv++
  const sizeKey = withMv * 2 >= raw.size && withMv > 0 ? 'size' : 'size_proxy'
  for (const name of SIGNAL_NAMES) {
    const key = name === 'size' ? sizeKey : name
    const ranks = percentileRanks(new Map([...raw].map(([code, values]) => [code, values[key]])))
    if (ranks.size < 2) continue
    for (const [code, pct] of ranks) (out.get(code) as Record<string, number>)[name] = 2 * pct - 1
  }
  return out
}
