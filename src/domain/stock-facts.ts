import { type CompanyReview, type FinancialSnapshot, hasHardInvalidation, reviewCompany } from './company-review.js'
import { type PeBandStats, type Valuation, valuationFromStats } from './valuation.js'

/** A financial report as the review reads it, plus the book value the PB-ROE valuation needs. */
export interface FactsFinancial extends FinancialSnapshot {
  readonly bvps: number | null
}

export interface FactsInput {
  readonly price: number | null
  readonly peToday: number | null
  readonly pe: PeBandStats | null
  readonly forecast: { eps_mean: number | null; eps_low: number | null; eps_high: number | null } | null
  /** Reports announced by the date, newest period first. */
  readonly financials: readonly FactsFinancial[]
}

export interface StockFactsResult {
  readonly valuation: Valuation | null
  readonly review: CompanyReview | null
  readonly upside: number | null
  readonly quality: number | null
  readonly invalidated: boolean
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
    epsTtm,
    forecast: input.forecast,
    bvps: latest?.bvps ?? null,
    roeHistory: input.financials.map((f) => f.roe).filter((v): v is number => v !== null),
  })
  const review = reviewCompany(latest)
  const upside = valuation && input.price ? valuation.reference_target / input.price - 1 : null
  return { valuation, review, upside, quality: review?.score ?? null, invalidated: hasHardInvalidation(review) }
}
