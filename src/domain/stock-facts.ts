import {
  type CompanyReview,
  type FinancialSnapshot,
  hardInvalidationCause,
  hasHardInvalidation,
  reviewCompany,
} from './company-review.js'
import { type ForecastInput, type PeBandStats, type Valuation, valuationFromStats } from './valuation.js'

/** A financial report as the review reads it, plus the book value the PB-ROE valuation needs. */
export interface FactsFinancial extends FinancialSnapshot {
  readonly bvps: number | null
}

export interface FactsInput {
  /** The valuation date (a forecast's age is counted to it). */
  readonly date?: string
  readonly price: number | null
  readonly peToday: number | null
  readonly pe: PeBandStats | null
  readonly forecast: ForecastInput | null
  /** Reports announced by the date, newest period first; `roe` is annualised. */
  readonly financials: readonly FactsFinancial[]
}

export interface StockFactsResult {
  readonly valuation: Valuation | null
  readonly review: CompanyReview | null
  readonly upside: number | null
  readonly quality: number | null
  readonly invalidated: boolean
  /** The hard invalidation in words, e.g. `loss in 2026Q3 (EPS -0.12)`. */
  readonly invalidation: string | null
  readonly valuation_method: string | null
}

/** Valuation, company review and what the build takes from them; the same for the build and the lookups. */
export function stockFacts(input: FactsInput): StockFactsResult {
  const latest = input.financials[0] ?? null
  // PE(TTM) = price / TTM EPS, so TTM EPS follows from the day's price and multiple.
  const epsTtm =
    input.price !== null && input.peToday !== null && input.peToday > 0 ? input.price / input.peToday : null
  const valuation = valuationFromStats({
    price: input.price,
    pe: input.pe,
    epsTtm: epsTtm ?? (latest?.eps !== null && latest?.eps !== undefined && latest.eps <= 0 ? latest.eps : null),
    forecast: input.forecast,
    date: input.date ?? null,
    bvps: latest?.bvps ?? null,
    roeHistory: input.financials.map((f) => f.roe).filter((v): v is number => v !== null),
  })
  const review = reviewCompany(latest)
  const upside = valuation && input.price ? valuation.reference_target / input.price - 1 : null
  const invalidated = hasHardInvalidation(review)
  return {
    valuation,
    review,
    upside,
    quality: review?.score ?? null,
    invalidated,
    invalidation: invalidated ? hardInvalidationCause(review) : null,
    valuation_method: valuation?.method ?? null,
  }
}
