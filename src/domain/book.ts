/**
 * The `main` book as a portfolio manager holds it (issue 38): each plan day T's `main` list (its first `depth`
 * names, in rank order) is the target the PMS trades to at the open of the next trading day D. Pure: the caller
 * passes the plan and a market to read bars from.
 *
 * - Equal weights at entry: an entrant is bought to NAV/depth; holdings then drift (no daily rebalancing). A short
 *   or empty `main` leaves the rest in cash (earning nothing).
 * - An entrant that opens at its limit up, or has no bar on D, is not bought; it is tried again on every later day
 *   it stays in the list. A leaver that opens at its limit down, or has no bar on D, is carried until it can be sold.
 * - Orders are capped at `advCap` of the stock's 20-day mean traded value; what is left is bought (or sold) on later
 *   days while the name stays in (or out of) the list.
 * - Costs per trade: commission both sides, stamp duty on sells by the trade date, and impact
 *   `halfSpread + impact × vol20d × √(order / amount20d)` (the square-root law).
 * Returns are fractions of the previous close's NAV; the book starts in cash on the first plan day.
 */
import { type CostModel, DEFAULT_COSTS, stampDutyOn } from './track-record.js'

export interface BookBar {
  readonly open: number
  readonly close: number
  /** Cumulative adjustment factor: back-adjusted price = price × adj (1 where prices are already adjusted). */
  readonly adj: number
  readonly limitUp: number | null
  readonly limitDown: number | null
  /** Mean traded value (CNY) of the 20 trading days before this one: known at the open. */
  readonly amount20d: number | null
  /** Standard deviation of the 20 daily returns before this day. */
  readonly vol20d: number | null
}

export interface BookPlanDay {
  readonly date: string
  /** `main` in rank order, as the PMS receives it. */
  readonly main: readonly string[]
}

export interface BookMarket {
  /** Trading days, ascending; the book runs on the days after the first plan day. */
  readonly calendar: readonly string[]
  /** The stock's bar on a trading day; null when it did not trade (suspended, not listed). */
  bar(code: string, date: string): BookBar | null
  /** The investable universe's return on `date`, measured as the book's day (`book-universe.ts`). */
  universeReturn(date: string): number | null
  /** The benchmark index's close-to-close return on `date` (CSI 300: a price index, no dividends). */
  benchmarkReturn(date: string): number | null
}

export interface BookCosts extends CostModel {
  readonly halfSpread: number
  /** Y of the square-root law: impact = Y × daily volatility × √(order / 20-day traded value). */
  readonly impact: number
  /** Largest order as a share of the stock's 20-day mean traded value. */
  readonly advCap: number
  /** Daily volatility assumed where a stock has no 20-day history. */
  readonly fallbackVol: number
}

/**
 * Costs a PM would sign (issue 47): half-spread 5 bp (one tick of 0.01 CNY on a 10 CNY stock is 10 bp); Y = 0.75,
 * the middle of the 0.5..1 the square-root-law literature reports (Almgren et al. 2005; Tóth et al. 2011); orders
 * at most 5% of a day's typical traded value, the rest carried to later days.
 */
export const DEFAULT_BOOK_COSTS: BookCosts = Object.freeze({
  ...DEFAULT_COSTS,
  halfSpread: 0.0005,
  impact: 0.75,
  advCap: 0.05,
  fallbackVol: 0.03,
})

export interface BookOptions {
  readonly depth: number
  /** The book's size in CNY at the start; orders scale with the NAV from there. */
  readonly bookSize: number
  readonly costs: BookCosts
}

export const DEFAULT_BOOK_DEPTH = 20
export const BOOK_SIZES = [20e6, 100e6, 300e6] as const

export interface BookDayResult {
  /** The trading day D whose open the book traded at and whose close marks it. */
  readonly date: string
  /** The plan day whose `main` was the target. */
  readonly planDate: string
  readonly gross: number
  readonly net: number
  /** Costs paid on D, as a fraction of the previous close's NAV. */
  readonly cost: number
  /** Value bought and sold at D's open, as fractions of the NAV at the open. */
  readonly bought: number
  readonly sold: number
  readonly holdings: number
  /** Cash at D's close as a fraction of the NAV. */
  readonly cash: number
  /** Names in the target that the book does not hold at D's close (limit up, no bar, capped, no cash). */
  readonly missed: number
  /** Leavers still held at D's close (limit down, no bar, capped). */
  readonly carried: number
  readonly universe: number | null
  readonly benchmark: number | null
}

interface Position {
  value: number
  /** Adjusted price at which `value` was last marked. */
  mark: number
  /** What is still to be spent (costs included) toward the entry weight. */
  pending: number
}

const EPS = 1e-9
/** Opens at its limit up: not bought that day (the book's rule, and its universe's). */
export const atLimitUp = (bar: Pick<BookBar, 'open' | 'limitUp'>): boolean =>
  bar.limitUp !== null && bar.open >= bar.limitUp - EPS
const atLimitDown = (bar: BookBar): boolean => bar.limitDown !== null && bar.open <= bar.limitDown + EPS

function markTo(position: Position, price: number): void {
  position.value *= price / position.mark
  position.mark = price
}

/** Cost rate (fraction of the traded value) of an order of `orderCny`, before stamp duty. */
export function tradingCostRate(
  bar: Pick<BookBar, 'amount20d' | 'vol20d'>,
  orderCny: number,
  costs: BookCosts,
): number {
  const share = bar.amount20d && bar.amount20d > 0 ? orderCny / bar.amount20d : costs.advCap
  return costs.commission + costs.halfSpread + costs.impact * (bar.vol20d ?? costs.fallbackVol) * Math.sqrt(share)
}

/** Largest order in NAV units the cap allows on this bar. */
function orderCap(bar: BookBar, cnyPerUnit: number, costs: BookCosts): number {
  return bar.amount20d && bar.amount20d > 0 ? (costs.advCap * bar.amount20d) / cnyPerUnit : Number.POSITIVE_INFINITY
}

interface Book {
  cash: number
  readonly held: Map<string, Position>
}

interface Trades {
  cost: number
  bought: number
  sold: number
}

export function simulateBook(plan: readonly BookPlanDay[], market: BookMarket, options: BookOptions): BookDayResult[] {
  const byDate = new Map(plan.map((p) => [p.date, p]))
  const dates = [...byDate.keys()].sort()
  const firstPlan = dates[0]
  const lastPlan = dates.at(-1)
  if (firstPlan === undefined || lastPlan === undefined) return []
  const book: Book = { cash: 1, held: new Map() }
  let target: BookPlanDay | null = null
  const out: BookDayResult[] = []
  const { calendar } = market
  for (let d = 1; d < calendar.length; d++) {
    const planDate = calendar[d - 1]!
    if (planDate < firstPlan || planDate > lastPlan) continue
    // a plan day without a stored plan keeps the last list: the PMS holds what it has
    target = byDate.get(planDate) ?? target
    if (target) out.push(tradeDay(book, target, calendar[d]!, market, options))
  }
  return out
}

/** One trading day: mark to the open, sell leavers, buy entrants, mark to the close. */
function tradeDay(
  book: Book,
  target: BookPlanDay,
  date: string,
  market: BookMarket,
  options: BookOptions,
): BookDayResult {
  const navBefore = nav(book)
  const bars = new Map<string, BookBar | null>()
  const barOf = (code: string): BookBar | null => {
    if (!bars.has(code)) bars.set(code, market.bar(code, date))
    return bars.get(code)!
  }
  markHoldings(book, barOf, 'open')
  const navOpen = nav(book)
  const wanted = new Set(target.main.slice(0, options.depth))
  const trades: Trades = { cost: 0, bought: 0, sold: 0 }
  const cnyPerUnit = options.bookSize * navOpen
  sellLeavers(book, wanted, barOf, { date, cnyPerUnit, costs: options.costs }, trades)
  buyTargets(book, wanted, barOf, { slot: navOpen / options.depth, cnyPerUnit, costs: options.costs }, trades)
  markHoldings(book, barOf, 'close')
  const navAfter = nav(book)
  let carried = 0
  for (const code of book.held.keys()) if (!wanted.has(code)) carried++
  let missed = 0
  for (const code of wanted) if (!book.held.has(code)) missed++
  return {
    date,
    planDate: target.date,
    gross: (navAfter + trades.cost) / navBefore - 1,
    net: navAfter / navBefore - 1,
    cost: trades.cost / navBefore,
    bought: trades.bought / navOpen,
    sold: trades.sold / navOpen,
    holdings: book.held.size,
    cash: book.cash / navAfter,
    missed,
    carried,
    universe: market.universeReturn(date),
    benchmark: market.benchmarkReturn(date),
  }
}

function markHoldings(book: Book, barOf: (code: string) => BookBar | null, at: 'open' | 'close'): void {
  for (const [code, position] of book.held) {
    const bar = barOf(code)
    if (bar) markTo(position, bar[at] * bar.adj)
  }
}

function sellLeavers(
  book: Book,
  wanted: ReadonlySet<string>,
  barOf: (code: string) => BookBar | null,
  at: { readonly date: string; readonly cnyPerUnit: number; readonly costs: BookCosts },
  trades: Trades,
): void {
  const stamp = stampDutyOn(at.costs, at.date)
  for (const [code, position] of book.held) {
    if (wanted.has(code)) continue
    position.pending = 0
    const bar = barOf(code)
    if (!bar || atLimitDown(bar)) continue
    const value = Math.min(position.value, orderCap(bar, at.cnyPerUnit, at.costs))
    const paid = value * (tradingCostRate(bar, value * at.cnyPerUnit, at.costs) + stamp)
    position.value -= value
    book.cash += value - paid
    trades.cost += paid
    trades.sold += value
    if (position.value <= EPS) book.held.delete(code)
  }
}

function buyTargets(
  book: Book,
  wanted: ReadonlySet<string>,
  barOf: (code: string) => BookBar | null,
  at: { readonly slot: number; readonly cnyPerUnit: number; readonly costs: BookCosts },
  trades: Trades,
): void {
  for (const code of wanted) {
    const position = book.held.get(code)
    const want = position ? position.pending : at.slot
    if (want <= EPS) continue
    const bar = barOf(code)
    if (!bar || atLimitUp(bar)) continue
    // the slot pays for its own costs: a name bought in full spends `want`, so the book is fully invested
    const cap = orderCap(bar, at.cnyPerUnit, at.costs)
    const rate = tradingCostRate(bar, Math.min(want, cap) * at.cnyPerUnit, at.costs)
    const spend = Math.min(want, cap * (1 + rate), Math.max(0, book.cash))
    if (spend <= EPS) continue
    const value = spend / (1 + rate)
    book.cash -= spend
    trades.cost += spend - value
    trades.bought += value
    const price = bar.open * bar.adj
    if (position) {
      markTo(position, price)
      position.value += value
      position.pending = want - spend
    } else book.held.set(code, { value, mark: price, pending: want - spend })
  }
}

function nav(book: Book): number {
  let total = book.cash
  for (const position of book.held.values()) total += position.value
  return total
}
