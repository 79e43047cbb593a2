/**
 * Theme heat from a concept board's own market, for a theme that has no curated theme_events in the look-back:
 * the board index's return over the last `returnDays`, the share of its members that rose on T, and how many of
 * them closed at the limit up on T. 0..100 like the curated heat (`themeHeat`).
 */
import { BUILD_RULES } from './build-rules.js'
import { roundTo as round } from './stats.js'
import { themeHeat } from './theme-heat.js'

export const BOARD_HEAT_RULES = Object.freeze({
  returnDays: 5,
  /** A move of this size over `returnDays` fills the return part (the same fall empties it; flat is half). */
  returnFull: 0.1,
  /** Members at the limit up that fill the limit-up part. */
  limitUpsFull: 3,
  returnShare: 0.4,
  breadthShare: 0.3,
  limitUpShare: 0.3,
})

/** A board index's closes, oldest first. */
export interface BoardSeries {
  readonly dates: readonly string[]
  readonly close: readonly number[]
}

export interface BoardMarket {
  readonly series: BoardSeries
  /** Share of its members (traded on T) that closed above the previous close; null when none traded. */
  readonly breadth: number | null
  /** Its members that closed at the limit up on T. */
  readonly limitUps: number
}

const clamp01 = (x: number): number => Math.min(1, Math.max(0, x))

/** Heat 0..100 of a board on `date`, or null when the board has no bar on `date` or none to compare it with. */
export function boardHeat(market: BoardMarket, date: string): number | null {
  const { dates, close } = market.series
  const n = close.length
  if (n < 2 || dates[n - 1] !== date) return null
  const base = close[Math.max(0, n - 1 - BOARD_HEAT_RULES.returnDays)]!
  if (!(base > 0)) return null
  const r = BOARD_HEAT_RULES
  const move = clamp01(0.5 + (close[n - 1]! / base - 1) / (2 * r.returnFull))
  // no member traded on T: breadth says nothing either way
  const breadth = market.breadth ?? 0.5
  const limitUps = Math.min(1, market.limitUps / r.limitUpsFull)
  return round(100 * (r.returnShare * move + r.breadthShare * breadth + r.limitUpShare * limitUps), 1)
}

/**
 * A theme's heat on T: curated events (their EMA, undefined when the theme had none in the look-back) blended
 * with the board's heat where the theme is a board with a bar on T, else with the members' breadth as before;
 * a board theme without curated events takes the board's heat whole.
 */
export function blendedHeat(ema: number | undefined, board: number | null, breadth: number | null): number {
  if (board === null) return themeHeat(ema ?? 0, breadth)
  if (ema === undefined) return board
  const share = BUILD_RULES.heatEventShare
  return round(Math.min(100, Math.max(0, share * ema + (1 - share) * board)), 1)
}
