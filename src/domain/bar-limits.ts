/** A day's limit prices of a stock, the same for the book and its universe. Pure. */
import type { Board } from './codes.js'
import { limitRatio } from './limit-rules.js'
import { limitDownPrice, limitUpPrice } from './outcomes.js'
import { tradingDaysBetween } from './trading-days.js'

export interface LimitBar {
  readonly date: string
  readonly isSt: boolean
  readonly preClose: number | null
  readonly upLimit: number | null
  readonly downLimit: number | null
}

export interface Listing {
  readonly board: string | null
  readonly listDate: string | null
}

/** The day's limit prices: the imported ones (tushare stk_limit), else the board's rule on pre_close. */
export function barLimits(
  listing: Listing,
  bar: LimitBar,
  calendar: readonly string[],
): { limitUp: number | null; limitDown: number | null } {
  if (bar.upLimit !== null && bar.downLimit !== null) return { limitUp: bar.upLimit, limitDown: bar.downLimit }
  if (bar.preClose === null || listing.board === null) return { limitUp: null, limitDown: null }
  const listed =
    listing.listDate === null || calendar.length === 0 || listing.listDate < calendar[0]!
      ? Number.POSITIVE_INFINITY
      : tradingDaysBetween(calendar, listing.listDate, bar.date)
  const ratio = limitRatio(listing.board as Board, bar.isSt, bar.date, listed)
  if (ratio === null) return { limitUp: null, limitDown: null }
  return { limitUp: limitUpPrice(bar.preClose, ratio), limitDown: limitDownPrice(bar.preClose, ratio) }
}
