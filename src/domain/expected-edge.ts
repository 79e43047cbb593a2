/**
 * What a name is expected to earn over the book's holding horizon and what trading it costs the book (PLAN_VERSION
 * 5 and 6, issue 47; docs/research-log.md R18 to R20). The expected excess is Grinold and Kahn's α = IC · σ · √H · z,
 * z the score's percentile as a standard normal score; the costs are the book simulation's own (`tradingCostRate`) for one
 * place of the book at its size, the order capped at the participation cap per day. Pure.
 */
import { type BookCosts, DEFAULT_BOOK_COSTS, tradingCostRate } from './book.js'
import { normalQuantile } from './normal.js'
import { stampDutyOn } from './track-record.js'

export interface EdgeRules {
  /** Information coefficient of the score: Grinold and Kahn's "good forecaster". */
  readonly ic: number
  /** Holding horizon in trading days (the one-month horizon of the signals' literature). */
  readonly horizon: number
  /** Daily volatility assumed with fewer than `minReturns` returns. */
  readonly fallbackVol: number
  readonly minReturns: number
  /** Percentiles are clamped to [clamp, 100 − clamp] before they become z-scores. */
  readonly clampPct: number
  /** Places of the book: an order is the book's size over them. */
  readonly places: number
  readonly costs: BookCosts
}

export const EDGE_RULES: EdgeRules = Object.freeze({
  ic: 0.05,
  horizon: 20,
  fallbackVol: 0.03,
  minReturns: 10,
  clampPct: 0.1,
  places: 20,
  costs: DEFAULT_BOOK_COSTS,
})

/** The book size the plan is built for when none is configured: the headline, 100 M CNY. */
export const DEFAULT_PLAN_BOOK_SIZE = 100e6

export interface TradeEdge {
  /** Expected excess return over the horizon, a fraction. */
  readonly alpha: number
  /** Cost of buying one place, and of selling it (stamp duty included), as fractions of the order. */
  readonly buy: number
  readonly sell: number
  readonly roundTrip: number
  /** The daily volatility α and the impact were priced at. */
  readonly vol: number
  /** One order of the book is within the participation cap of the name's 20-day traded value: it fills in a day. */
  readonly fillsFirstDay: boolean
}

export interface EdgeInput {
  /** The score: percentile 0..100 among the day's eligible names. */
  readonly score: number
  /** Standard deviation of the daily returns of the last 20 traded days; null with too few. */
  readonly vol20d: number | null
  /** 20-day mean traded value, CNY. */
  readonly amountMa20: number
}

export function tradeEdge(input: EdgeInput, date: string, bookSize: number, rules: EdgeRules = EDGE_RULES): TradeEdge {
  const sigma = input.vol20d ?? rules.fallbackVol
  const p = Math.min(100 - rules.clampPct, Math.max(rules.clampPct, input.score)) / 100
  const alpha = rules.ic * sigma * Math.sqrt(rules.horizon) * normalQuantile(p)
  const order = bookSize / rules.places
  // an order above the cap is worked over several days, each at the cap: each piece pays the capped impact
  const piece = input.amountMa20 > 0 ? Math.min(order, rules.costs.advCap * input.amountMa20) : order
  const side = tradingCostRate({ amount20d: input.amountMa20, vol20d: sigma }, piece, rules.costs)
  const sell = side + stampDutyOn(rules.costs, date)
  const fillsFirstDay = input.amountMa20 > 0 && order <= rules.costs.advCap * input.amountMa20
  return { alpha, buy: side, sell, roundTrip: side + sell, vol: sigma, fillsFirstDay }
}
