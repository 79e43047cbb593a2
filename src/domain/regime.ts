/**
 * Market regime (DESIGN §8 "Regime", domain-research §4): four items `breadth`, `limits`, `turnover` and
 * `trend`, each with a signal, and a status with a weak-day flag derived from them.
 *
 * - Suspended names are left out of everything; ST names are left out of the limit counts only.
 * - Any missing input makes that item `unknown`; values that cannot be computed are null.
 * - Signals compare the values as reported (ratios rounded to 3 decimals), so a shown `up_ratio` of 0.600 is
 *   always `positive`.
 * - The research proposes holding the status for two days before a strong <-> weak change. That needs the
 *   previous day's status, so it is not done here: every day's status stands on that day's numbers alone.
 */
import type { Board } from './codes.js'
import { limitRatio } from './limit-rules.js'
import { deepFreeze, mean, roundTo } from './stats.js'

export type Signal = 'positive' | 'neutral' | 'negative' | 'unknown'

export const REGIME_UNKNOWN = 'unknown' as const

export type RegimeStatus = 'strong' | 'neutral' | 'weak' | typeof REGIME_UNKNOWN

export const REGIME_RULES = deepFreeze({
  breadth: { positiveUpRatio: 0.6, negativeUpRatio: 0.4 },
  limits: { positiveMinUp: 40, positiveUpToDown: 2, negativeMinDown: 30 },
  turnover: {
    days: 20,
    heavyRatio: 1.1,
    lightRatio: 0.8,
    positiveMinUpRatio: 0.5,
    /** Heavy volume on a down day (放量下跌): ratio >= heavyRatio with up_ratio below this. */
    heavyDownUpRatio: 0.4,
  },
  trend: { positivePctAbove: 0.6, negativePctAbove: 0.4 },
  status: { unknownMinItems: 2, strongMinPositive: 3, weakMinNegative: 3 },
  weakDay: { maxUpRatio: 0.25, minLimitDown: 20 },
  /** Decimals of the reported ratios. */
  ratioDigits: 3,
} as const)

export interface MarketStock {
  readonly close: number
  readonly pre_close: number | null
  readonly amount: number
  readonly board: Board
  readonly is_st: boolean
  readonly is_suspended: boolean
  readonly above_ma20: boolean | null
  /** Trading days since listing (1 = first day); absent when unknown. New listings' unlimited days are not counted. */
  readonly listed_days?: number
}

export interface MarketInput {
  readonly date: string
  readonly stocks: ReadonlyArray<MarketStock>
  /** Whole-market amount (yuan) of the last 20 trading days, oldest first; the last one is `date`. */
  readonly amountHistory: readonly number[]
  readonly index: { readonly code: string; readonly close: number; readonly ma20: number } | null
}

export interface BreadthItem {
  signal: Signal
  up: number | null
  down: number | null
  flat: number | null
  up_ratio: number | null
}
export interface LimitsItem {
  signal: Signal
  limit_up: number | null
  limit_down: number | null
}
export interface TurnoverItem {
  signal: Signal
  amount: number | null
  ma20: number | null
  ratio: number | null
}
export interface TrendItem {
  signal: Signal
  index: string | null
  close: number | null
  ma20: number | null
  pct_above_ma20: number | null
}

export interface Market {
  breadth: BreadthItem
  limits: LimitsItem
  turnover: TurnoverItem
  trend: TrendItem
}

export interface Regime {
  status: RegimeStatus
  weak_day: boolean | null
  source: string
}

const ratio = (value: number): number => roundTo(value, REGIME_RULES.ratioDigits)

function isPrice(value: number | null): value is number {
  return value !== null && Number.isFinite(value) && value > 0
}

function breadthOf(stocks: readonly MarketStock[]): BreadthItem {
  let up = 0
  let down = 0
  let flat = 0
  for (const s of stocks) {
    if (!isPrice(s.pre_close) || !isPrice(s.close)) continue
    if (s.close > s.pre_close) up += 1
    else if (s.close < s.pre_close) down += 1
    else flat += 1
  }
  if (up + down + flat === 0) return { signal: 'unknown', up: null, down: null, flat: null, up_ratio: null }
  if (up + down === 0) return { signal: 'unknown', up, down, flat, up_ratio: null }
  const upRatio = ratio(up / (up + down))
  const R = REGIME_RULES.breadth
  const signal: Signal =
    upRatio >= R.positiveUpRatio ? 'positive' : upRatio < R.negativeUpRatio ? 'negative' : 'neutral'
  return { signal, up, down, flat, up_ratio: upRatio }
}

/**
 * Limit prices as the exchanges set them on `date`: pre_close x (1 +- r), rounded half up to the fen; null on a
 * new listing's days without a limit.
 */
export function limitPrices(
  preClose: number,
  board: Board,
  isSt: boolean,
  date: string,
  listedDays = Number.POSITIVE_INFINITY,
): { up: number; down: number } | null {
  const r = limitRatio(board, isSt, date, listedDays)
  if (r === null) return null
  return { up: roundTo(preClose * (1 + r), 2), down: roundTo(preClose * (1 - r), 2) }
}

function limitsOf(stocks: readonly MarketStock[], date: string): LimitsItem {
  let counted = 0
  let limitUp = 0
  let limitDown = 0
  for (const s of stocks) {
    if (s.is_st || !isPrice(s.pre_close) || !isPrice(s.close)) continue
    const limits = limitPrices(s.pre_close, s.board, false, date, s.listed_days)
    if (limits === null) continue
    counted += 1
    if (s.close >= limits.up) limitUp += 1
    else if (s.close <= limits.down) limitDown += 1
  }
  if (counted === 0) return { signal: 'unknown', limit_up: null, limit_down: null }
  const R = REGIME_RULES.limits
  // Negative first: 80 up with 35 down meets both rules, and a heavy limit-down count is the louder signal.
  const signal: Signal =
    limitDown > limitUp || limitDown >= R.negativeMinDown
      ? 'negative'
      : limitUp >= R.positiveUpToDown * limitDown && limitUp >= R.positiveMinUp
        ? 'positive'
        : 'neutral'
  return { signal, limit_up: limitUp, limit_down: limitDown }
}

function turnoverOf(history: readonly number[], upRatio: number | null): TurnoverItem {
  const R = REGIME_RULES.turnover
  const window = history.slice(-R.days)
  const usable = window.length === R.days && window.every((a) => Number.isFinite(a) && a >= 0)
  const amount = usable ? window[window.length - 1]! : null
  const ma20 = usable ? mean(window) : null
  if (amount === null || ma20 === null || ma20 <= 0) {
    return { signal: 'unknown', amount, ma20: ma20 === null ? null : roundTo(ma20, 2), ratio: null }
  }
  const r = ratio(amount / ma20)
  let signal: Signal
  if (upRatio === null) signal = 'unknown'
  else if (r <= R.lightRatio || (r >= R.heavyRatio && upRatio < R.heavyDownUpRatio)) signal = 'negative'
  else if (r >= R.heavyRatio && upRatio >= R.positiveMinUpRatio) signal = 'positive'
  else signal = 'neutral'
  return { signal, amount, ma20: roundTo(ma20, 2), ratio: r }
}

function trendOf(stocks: readonly MarketStock[], index: MarketInput['index']): TrendItem {
  let known = 0
  let above = 0
  for (const s of stocks) {
    if (s.above_ma20 === null) continue
    known += 1
    if (s.above_ma20) above += 1
  }
  const pct = known === 0 ? null : ratio(above / known)
  const indexOk = index !== null && isPrice(index.close) && isPrice(index.ma20)
  const item = {
    index: index?.code ?? null,
    close: indexOk ? index.close : null,
    ma20: indexOk ? roundTo(index.ma20, 2) : null,
    pct_above_ma20: pct,
  }
  if (!indexOk || pct === null) return { signal: 'unknown', ...item }
  const R = REGIME_RULES.trend
  const signal: Signal =
    index.close > index.ma20 && pct >= R.positivePctAbove
      ? 'positive'
      : index.close < index.ma20 && pct < R.negativePctAbove
        ? 'negative'
        : 'neutral'
  return { signal, ...item }
}

/** The four market items for one day. Suspended names are ignored throughout. */
export function computeMarket(input: MarketInput): Market {
  const trading = input.stocks.filter((s) => !s.is_suspended)
  const breadth = breadthOf(trading)
  return {
    breadth,
    limits: limitsOf(trading, input.date),
    turnover: turnoverOf(input.amountHistory, breadth.up_ratio),
    trend: trendOf(trading, input.index),
  }
}

const ITEMS = ['breadth', 'limits', 'turnover', 'trend'] as const

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`
}

/** Kleene OR: true when any term is true, false when all are false, otherwise null. */
function anyTrue(terms: readonly (boolean | null)[]): boolean | null {
  if (terms.some((t) => t === true)) return true
  return terms.every((t) => t === false) ? false : null
}

/**
 * Status: `unknown` with >= 2 unknown items; `strong` with >= 3 positives and no negative; `weak` with >= 3
 * negatives or breadth and trend both negative; otherwise `neutral`.
 * weak_day = status is weak, or up_ratio < 0.25, or limit_down >= max(20, limit_up); a term that cannot be
 * evaluated is unknown, so weak_day is null when no term is true and some term is unknown.
 */
export function computeRegime(market: Market, date: string): Regime {
  const R = REGIME_RULES
  const signals = ITEMS.map((key) => market[key].signal)
  const count = (s: Signal) => signals.filter((x) => x === s).length
  const positive = count('positive')
  const negative = count('negative')
  const unknown = count('unknown')
  let status: RegimeStatus
  if (unknown >= R.status.unknownMinItems) status = REGIME_UNKNOWN
  else if (positive >= R.status.strongMinPositive && negative === 0) status = 'strong'
  else if (
    negative >= R.status.weakMinNegative ||
    (market.breadth.signal === 'negative' && market.trend.signal === 'negative')
  )
    status = 'weak'
  else status = 'neutral'

  const { up_ratio } = market.breadth
  const { limit_up, limit_down } = market.limits
  const weakDay = anyTrue([
    status === REGIME_UNKNOWN ? null : status === 'weak',
    up_ratio === null ? null : up_ratio < R.weakDay.maxUpRatio,
    limit_up === null || limit_down === null ? null : limit_down >= Math.max(R.weakDay.minLimitDown, limit_up),
  ])
  let source = `snapshot ${date}: ${plural(positive, 'item')} positive, ${negative} negative`
  if (unknown > 0) source += `, ${unknown} unknown`
  return { status, weak_day: weakDay, source }
}

/** The regime of a day whose snapshot carries no environment section. */
export function regimeWithoutSnapshot(date: string): Regime {
  return { status: REGIME_UNKNOWN, weak_day: null, source: `snapshot ${date}: no market environment section` }
}
