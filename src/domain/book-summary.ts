/**
 * Figures of a simulated book's daily P&L against a baseline (the investable universe or the benchmark index).
 * Daily P&L does not overlap, so the IR is the daily excess's mean over its sd × √252; the t of the mean is
 * Newey-West's (Bartlett weights) for the serial correlation daily excess returns keep.
 */
import type { BookDayResult } from './book.js'
import { maxDrawdown, neweyWestLags, sampleSd, summarise } from './track-stats.js'

export type Baseline = 'universe' | 'benchmark'

export interface PeriodExcess {
  /** `YYYY-MM` or `YYYY-Qn`. */
  readonly period: string
  /** The book's net value over the baseline's across the period, less 1. */
  readonly excess: number
}

export interface BookSummary {
  readonly baseline: Baseline
  readonly days: number
  readonly from: string | null
  readonly to: string | null
  readonly grossExcess: { readonly mean: number | null; readonly t: number | null }
  readonly netExcess: { readonly mean: number | null; readonly t: number | null }
  /** Annualised net excess over its annualised tracking error (daily, √252). */
  readonly netIr: number | null
  /** The book's net value over the baseline's at the end, less 1. */
  readonly cumulativeNetExcess: number | null
  readonly annualisedNetExcess: number | null
  /** Largest fall of the net relative value (book / baseline), as a positive fraction. */
  readonly maxDrawdown: number | null
  readonly worstMonth: PeriodExcess | null
  readonly quarters: PeriodExcess[]
  /** Mean one-sided daily turnover: (bought + sold) / 2 of the NAV. */
  readonly turnover: number | null
  /** Costs a year as a fraction of the NAV (mean daily cost × 252). */
  readonly costDrag: number | null
  /** Days whose target held a name the book could not buy, and whose leavers the book still held. */
  readonly daysMissing: number
  readonly daysCarrying: number
  readonly meanCash: number | null
}

export const MIN_BOOK_DAYS = 20
const YEAR = 252

const mean = (xs: readonly number[]): number | null => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null)

function relativeByPeriod(days: readonly BookDayResult[], key: (date: string) => string, pick: Baseline) {
  const periods = new Map<string, { book: number; base: number }>()
  for (const d of days) {
    const base = d[pick]
    if (base === null) continue
    const k = key(d.date)
    const p = periods.get(k) ?? { book: 1, base: 1 }
    p.book *= 1 + d.net
    p.base *= 1 + base
    periods.set(k, p)
  }
  return [...periods].map(([period, p]) => ({ period, excess: p.book / p.base - 1 }))
}

const monthOf = (date: string): string => date.slice(0, 7)
const quarterOf = (date: string): string => `${date.slice(0, 4)}-Q${Math.floor((Number(date.slice(5, 7)) - 1) / 3) + 1}`

export function summariseBook(days: readonly BookDayResult[], pick: Baseline): BookSummary {
  const scored = days.filter((d) => d[pick] !== null)
  const gross = scored.map((d) => d.gross - d[pick]!)
  const net = scored.map((d) => d.net - d[pick]!)
  const lags = neweyWestLags(scored.length)
  const g = summarise(gross, lags, 'bartlett')
  const n = summarise(net, lags, 'bartlett')
  const sd = sampleSd(net)
  let book = 1
  let base = 1
  const relative: number[] = []
  for (const d of scored) {
    book *= 1 + d.net
    base *= 1 + d[pick]!
    relative.push(book / base)
  }
  const cumulative = scored.length ? book / base - 1 : null
  const months = relativeByPeriod(scored, monthOf, pick)
  const worstMonth = months.reduce<PeriodExcess | null>((w, m) => (w === null || m.excess < w.excess ? m : w), null)
  return {
    baseline: pick,
    days: scored.length,
    from: scored[0]?.date ?? null,
    to: scored.at(-1)?.date ?? null,
    grossExcess: { mean: g.mean, t: g.t },
    netExcess: { mean: n.mean, t: n.t },
    netIr: scored.length >= MIN_BOOK_DAYS && n.mean !== null && sd ? (n.mean / sd) * Math.sqrt(YEAR) : null,
    cumulativeNetExcess: cumulative,
    annualisedNetExcess: cumulative === null ? null : (1 + cumulative) ** (YEAR / scored.length) - 1,
    maxDrawdown: scored.length ? maxDrawdown(relative) : null,
    worstMonth,
    quarters: relativeByPeriod(scored, quarterOf, pick),
    turnover: mean(days.map((d) => (d.bought + d.sold) / 2)),
    costDrag: days.length ? mean(days.map((d) => d.cost))! * YEAR : null,
    daysMissing: days.filter((d) => d.missed > 0).length,
    daysCarrying: days.filter((d) => d.carried > 0).length,
    meanCash: mean(days.map((d) => d.cash)),
  }
}
