/**
 * What the main book's excess is made of (issue 47): its daily excess over the universe regressed on the universe's
 * size and reversal factors, its excess over a benchmark matched on traded value, the deflated Sharpe ratio of its
 * net excess after the research log's attempts, and its net figures under other cost assumptions. Pure.
 */
import {
  type BookCosts,
  type BookDayResult,
  type BookMarket,
  type BookPlanDay,
  DEFAULT_BOOK_COSTS,
  simulateBook,
} from './book.js'
import { summariseBook } from './book-summary.js'
import { deflatedSharpe } from './deflated-sharpe.js'
import { type FactorFit, regressOnFactors } from './factor-regression.js'
import { neweyWestLags, summarise } from './track-stats.js'

/**
 * Score rules and signals tried on the development set (docs/research-log.md): 20 single signals and 18 book rules
 * for PLAN_VERSION 4, PLAN_VERSION 5's one run (R18), R19 and R20. A new attempt logged there is counted here.
 */
export const RESEARCH_ATTEMPTS = 42

/** The universe's factor returns and the matched benchmark's return on a book day. */
export interface DayFactors {
  readonly size: number | null
  readonly reversal: number | null
  readonly matched: number | null
}

interface FitJson {
  readonly days: number
  readonly alpha: number
  readonly alpha_t: number | null
  readonly loadings: ReadonlyArray<{ readonly name: string; readonly beta: number; readonly t: number | null }>
  readonly r2: number
}

export interface BookAttribution {
  readonly days: number
  readonly factors: string
  /** The daily gross and net excess over the universe regressed on the size and reversal factors. */
  readonly gross: FitJson | null
  readonly net: FitJson | null
  /** The book's daily return less the matched benchmark's (each target name's traded-value decile). */
  readonly matched: {
    readonly gross: { readonly mean: number | null; readonly t: number | null }
    readonly net: { readonly mean: number | null; readonly t: number | null }
  }
  readonly deflated_sharpe: {
    readonly attempts: number
    readonly days: number
    readonly net_ir: number
    readonly lucky_best_ir: number
    readonly probability: number
  } | null
}

const fitJson = (fit: FactorFit | null): FitJson | null =>
  fit && { days: fit.days, alpha: fit.alpha, alpha_t: fit.alphaT, loadings: fit.loadings, r2: fit.r2 }

export const FACTOR_RULE =
  "size: the universe's bottom third by 20-day traded value less its top third; reversal: its bottom third by 20-day return less its top third; both measured as the universe is"

export function bookAttribution(
  days: readonly BookDayResult[],
  factors: ReadonlyMap<string, DayFactors>,
  attempts: number,
): BookAttribution {
  const scored = days.filter((d) => d.universe !== null)
  const size = scored.map((d) => factors.get(d.date)?.size ?? Number.NaN)
  const reversal = scored.map((d) => factors.get(d.date)?.reversal ?? Number.NaN)
  const series = [
    { name: 'size', values: size },
    { name: 'reversal', values: reversal },
  ]
  const net = scored.map((d) => d.net - d.universe!)
  const matchedDays = days.filter((d) => (factors.get(d.date)?.matched ?? null) !== null)
  const lags = neweyWestLags(matchedDays.length)
  const vsMatched = (pick: 'gross' | 'net') => {
    const s = summarise(
      matchedDays.map((d) => d[pick] - factors.get(d.date)!.matched!),
      lags,
      'bartlett',
    )
    return { mean: s.mean, t: s.t }
  }
  const dsr = deflatedSharpe(net, attempts)
  return {
    days: scored.length,
    factors: FACTOR_RULE,
    gross: fitJson(
      regressOnFactors(
        scored.map((d) => d.gross - d.universe!),
        series,
      ),
    ),
    net: fitJson(regressOnFactors(net, series)),
    matched: { gross: vsMatched('gross'), net: vsMatched('net') },
    deflated_sharpe: dsr && {
      attempts,
      days: dsr.days,
      net_ir: dsr.sharpeAnnual,
      lucky_best_ir: dsr.luckyBestAnnual,
      probability: dsr.probability,
    },
  }
}

export interface CostScenario {
  readonly impact: number
  /** Largest order as a share of the 20-day mean traded value. */
  readonly adv_cap: number
  readonly net_excess: { readonly mean: number | null; readonly t: number | null }
  readonly net_ir: number | null
  readonly turnover: number | null
  readonly cost_drag: number | null
}

export const SENSITIVITY_IMPACTS = [0.5, 0.75, 1] as const
export const SENSITIVITY_CAPS = [0.05, 0.1] as const

/**
 * The book at one size under each impact coefficient × participation cap, the other costs as `costs`. `simulated`,
 * the book already simulated at `costs` and this size, stands for its own scenario instead of a second simulation.
 */
export function costSensitivity(
  plan: readonly BookPlanDay[],
  market: BookMarket,
  options: {
    readonly depth: number
    readonly bookSize: number
    readonly costs?: BookCosts
    readonly simulated?: readonly BookDayResult[]
  },
): CostScenario[] {
  const base = options.costs ?? DEFAULT_BOOK_COSTS
  return SENSITIVITY_IMPACTS.flatMap((impact) =>
    SENSITIVITY_CAPS.map((advCap) => {
      const days =
        options.simulated && impact === base.impact && advCap === base.advCap
          ? options.simulated
          : simulateBook(plan, market, {
              depth: options.depth,
              bookSize: options.bookSize,
              costs: { ...base, impact, advCap },
            })
      const s = summariseBook(days, 'universe')
      return {
        impact,
        adv_cap: advCap,
        net_excess: s.netExcess,
        net_ir: s.netIr,
        turnover: s.turnover,
        cost_drag: s.costDrag,
      }
    }),
  )
}
