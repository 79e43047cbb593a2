/**
 * The main book's report (issues 38, 47): the book simulated at each size, its figures against the investable
 * universe (the headline) and the benchmark index, its daily curve at the headline size, its exposures, and at the
 * headline size what its excess is made of and its figures under other cost assumptions. Pure.
 */
import {
  BOOK_SIZES,
  type BookCosts,
  type BookDayResult,
  type BookMarket,
  type BookPlanDay,
  simulateBook,
} from './book.js'
import {
  type BookAttribution,
  bookAttribution,
  type CostScenario,
  costSensitivity,
  type DayFactors,
  RESEARCH_ATTEMPTS,
} from './book-attribution.js'
import { averageExposures, type BookDayFacts, type BookExposures } from './book-exposures.js'
import { type BookSummary, summariseBook } from './book-summary.js'
import { UNIVERSE_RULE } from './book-universe.js'

/** The size the daily curve is drawn at: the target is net excess > 0 at 100 M CNY. */
export const HEADLINE_BOOK_SIZE = 100e6

export interface BookSummaryJson {
  readonly days: number
  readonly gross_excess: { readonly mean: number | null; readonly t: number | null }
  readonly net_excess: { readonly mean: number | null; readonly t: number | null }
  readonly net_ir: number | null
  readonly cumulative_net_excess: number | null
  readonly annualised_net_excess: number | null
  readonly max_drawdown: number | null
  readonly worst_month: { readonly period: string; readonly excess: number } | null
  readonly quarters: Array<{ readonly period: string; readonly excess: number }>
}

export interface BookSizeFigures {
  /** Book size in CNY at the start. */
  readonly size: number
  readonly turnover: number | null
  readonly cost_drag: number | null
  readonly mean_cash: number | null
  readonly days_missing: number
  readonly days_carrying: number
  readonly universe: BookSummaryJson
  readonly benchmark: BookSummaryJson
}

export interface BookCurveDay {
  readonly date: string
  readonly plan_date: string
  readonly gross: number
  readonly net: number
  readonly cost: number
  readonly turnover: number
  readonly holdings: number
  readonly cash: number
  readonly universe: number | null
  readonly benchmark: number | null
  /** Net value of the book over the universe's (and the benchmark's) since the start; 1 at the start. */
  readonly cum_net_excess: number
  readonly cum_net_excess_benchmark: number
}

export interface BookReport {
  readonly depth: number
  readonly from: string | null
  readonly to: string | null
  readonly headline_size: number
  readonly benchmark: { readonly code: string; readonly note: string }
  readonly universe: { readonly rule: string }
  readonly costs: BookCosts
  readonly sizes: BookSizeFigures[]
  /** Daily P&L at the headline size. */
  readonly days: BookCurveDay[]
  readonly exposures: BookExposures & { readonly note: string }
  /** The headline size's excess net of the size and reversal factors, against the matched benchmark, deflated. */
  readonly attribution: BookAttribution
  /** The headline size's net figures at each impact coefficient × participation cap. */
  readonly cost_sensitivity: CostScenario[]
}

function summaryJson(s: BookSummary): BookSummaryJson {
  return {
    days: s.days,
    gross_excess: s.grossExcess,
    net_excess: s.netExcess,
    net_ir: s.netIr,
    cumulative_net_excess: s.cumulativeNetExcess,
    annualised_net_excess: s.annualisedNetExcess,
    max_drawdown: s.maxDrawdown,
    worst_month: s.worstMonth,
    quarters: s.quarters,
  }
}

function curve(days: readonly BookDayResult[]): BookCurveDay[] {
  let book = 1
  let universe = 1
  let benchmark = 1
  return days.map((d) => {
    book *= 1 + d.net
    if (d.universe !== null) universe *= 1 + d.universe
    if (d.benchmark !== null) benchmark *= 1 + d.benchmark
    return {
      date: d.date,
      plan_date: d.planDate,
      gross: d.gross,
      net: d.net,
      cost: d.cost,
      turnover: (d.bought + d.sold) / 2,
      holdings: d.holdings,
      cash: d.cash,
      universe: d.universe,
      benchmark: d.benchmark,
      cum_net_excess: book / universe,
      cum_net_excess_benchmark: book / benchmark,
    }
  })
}

export function assembleBookReport(input: {
  readonly plan: readonly BookPlanDay[]
  readonly market: BookMarket
  readonly facts: readonly BookDayFacts[]
  /** The universe's factor legs and the matched benchmark's return, by book day D. */
  readonly factors: ReadonlyMap<string, DayFactors>
  readonly depth: number
  readonly costs: BookCosts
  readonly benchmark: string
}): BookReport {
  const runs = BOOK_SIZES.map((size) => ({
    size,
    days: simulateBook(input.plan, input.market, { depth: input.depth, bookSize: size, costs: input.costs }),
  }))
  const headline = runs.find((r) => r.size === HEADLINE_BOOK_SIZE) ?? runs[0]!
  return {
    depth: input.depth,
    from: headline.days[0]?.date ?? null,
    to: headline.days.at(-1)?.date ?? null,
    headline_size: headline.size,
    benchmark: { code: input.benchmark, note: 'a price index: no dividends, while the book earns them' },
    universe: { rule: UNIVERSE_RULE },
    costs: input.costs,
    sizes: runs.map(({ size, days }) => {
      const universe = summariseBook(days, 'universe')
      return {
        size,
        turnover: universe.turnover,
        cost_drag: universe.costDrag,
        mean_cash: universe.meanCash,
        days_missing: universe.daysMissing,
        days_carrying: universe.daysCarrying,
        universe: summaryJson(universe),
        benchmark: summaryJson(summariseBook(days, 'benchmark')),
      }
    }),
    days: curve(headline.days),
    exposures: {
      ...averageExposures(input.facts),
      note: "mean z-score of each plan day's target names among that day's investable universe, averaged over the days; industries from stock_basic are today's, not point in time",
    },
    attribution: bookAttribution(headline.days, input.factors, RESEARCH_ATTEMPTS),
    cost_sensitivity: costSensitivity(input.plan, input.market, {
      depth: input.depth,
      bookSize: headline.size,
      costs: input.costs,
      simulated: headline.days,
    }),
  }
}
