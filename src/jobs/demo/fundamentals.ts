/**
 * Quarterly financials and consensus forecasts. `eps` and `roe` in financials.csv are trailing-twelve-month
 * figures as of the report's end date, so `pe_ttm` in basics.csv is the close divided by the `eps` of the latest
 * report announced by that day. Loss-makers have negative EPS in every quarter (and no pe_ttm).
 */
import { dayNumber, isoFromDayNumber } from './calendar.js'
import { clamp, rounded } from './format.js'
import type { StockProfile } from './profiles.js'
import { Random } from './random.js'
import type { Security } from './securities.js'

/** Quarters written per stock. */
export const REPORTED_QUARTERS = 8
/** Quarters simulated: four more before the first reported one, for the year-on-year figures. */
const SIMULATED_QUARTERS = REPORTED_QUARTERS + 4
const MIN_ANN_LAG = 20
const MAX_ANN_LAG = 60

export interface Quarter {
  readonly endDate: string
  readonly endDay: number
}

export interface FinancialRow {
  readonly endDate: string
  readonly annDate: string
  readonly eps: number
  readonly bvps: number
  readonly roe: number
  readonly grossMargin: number | null
  readonly ocfToNp: number
  readonly debtToAssets: number
  readonly revenueYoy: number
  readonly npYoy: number
}

export interface ForecastRow {
  readonly asOf: string
  readonly fiscalYear: number
  readonly epsMean: number
  readonly epsLow: number
  readonly epsHigh: number
}

export interface Fundamentals {
  /** Oldest first. */
  readonly financials: readonly FinancialRow[]
  readonly forecasts: readonly ForecastRow[]
}

/** The latest quarter ends that can be announced (20 days after the end) by `endDate`, oldest first. */
export function reportQuarters(endDate: string): Quarter[] {
  const last = dayNumber(endDate)
  const out: Quarter[] = []
  for (let year = Number(endDate.slice(0, 4)); out.length < SIMULATED_QUARTERS; year--) {
    for (const md of ['12-31', '09-30', '06-30', '03-31']) {
      const iso = `${year}-${md}`
      const day = dayNumber(iso)
      if (day + MIN_ANN_LAG <= last && out.length < SIMULATED_QUARTERS) out.push({ endDate: iso, endDay: day })
    }
  }
  return out.reverse()
}

/** The latest report announced on or before `date`, else the oldest one. */
export function reportInEffect(financials: readonly FinancialRow[], date: string): FinancialRow {
  let found = financials[0]!
  for (const row of financials) if (row.annDate <= date) found = row
  return found
}

export function generateFundamentals(
  seed: number,
  sec: Security,
  profile: StockProfile,
  quarters: readonly Quarter[],
  calendar: readonly string[],
  endDate: string,
  hotWeight: number,
): Fundamentals {
  const rng = new Random(seed, 'fundamentals', sec.code)
  const lastDay = dayNumber(endDate)
  const annDays = quarters.map((q) => q.endDay + rng.int(MIN_ANN_LAG, Math.min(MAX_ANN_LAG, lastDay - q.endDay)))
  const annDates = annDays.map(isoFromDayNumber)
  const loss = profile.lossMaker

  // TTM EPS path, then scaled so that the report in effect on the first bar gives PE(TTM) = pe0.
  const raw: number[] = []
  let level = loss ? -1 : 1
  for (let k = 0; k < SIMULATED_QUARTERS; k++) {
    if (k > 0)
      level *= loss ? Math.exp(rng.normal(0, 0.15)) : (1 + profile.growth) ** 0.25 * Math.exp(rng.normal(0, 0.04))
    raw.push(level)
  }
  const firstDate = calendar[sec.firstBar]!
  let anchor = SIMULATED_QUARTERS - REPORTED_QUARTERS
  for (let k = anchor; k < SIMULATED_QUARTERS; k++) if (annDates[k]! <= firstDate) anchor = k
  const anchorEps = loss ? -rng.logUniform(0.05, 0.8) : profile.startFen / 100 / profile.pe0
  const eps = raw.map((v) => {
    const e = (v / raw[anchor]!) * anchorEps
    return loss ? Math.min(-0.01, e) : Math.max(0.01, e)
  })

  const industry = sec.industry
  const roeBase = rng.float(industry.roe[0], industry.roe[1])
  const bvAnchor = loss ? rng.logUniform(1.5, 6) : eps[anchor]! / roeBase
  const bvGrowth = loss ? clamp(1 + (0.5 * anchorEps) / bvAnchor, 0.7, 1) : 1 + 0.6 * roeBase
  const gmBase = industry.grossMargin ? rng.float(industry.grossMargin[0], industry.grossMargin[1]) : null
  const ocfBase = loss ? rng.float(-1.5, 0.5) : rng.float(0.6, 1.5)
  const debtBase = rng.float(industry.debt[0], industry.debt[1])

  const financials: FinancialRow[] = []
  for (let k = SIMULATED_QUARTERS - REPORTED_QUARTERS; k < SIMULATED_QUARTERS; k++) {
    const bvps = Math.max(0.3, bvAnchor * bvGrowth ** ((k - anchor) / 4))
    const e = eps[k]!
    const before = eps[k - 4]!
    financials.push({
      endDate: quarters[k]!.endDate,
      annDate: annDates[k]!,
      eps: rounded(e, 4),
      bvps: rounded(bvps, 4),
      roe: rounded(e / bvps, 4),
      grossMargin: gmBase === null ? null : rounded(clamp(gmBase + rng.normal(0, 0.01), 0.02, 0.98), 4),
      ocfToNp: rounded(ocfBase + rng.normal(0, 0.15), 4),
      debtToAssets: rounded(clamp(debtBase + rng.normal(0, 0.01), 0.05, 0.95), 4),
      revenueYoy: rounded(loss ? rng.normal(-0.05, 0.2) : profile.growth * 0.8 + rng.normal(0, 0.06), 4),
      npYoy: rounded((e - before) / Math.abs(before), 4),
    })
  }

  const forecasts: ForecastRow[] = []
  if (!loss && rng.chance(hotWeight > 0 ? 0.9 : 0.6)) {
    const days = calendar.length
    const asOfs = [calendar[Math.max(0, days - 61)]!, calendar[days - 1 - rng.int(0, Math.min(9, days - 1))]!]
    const year = Number(endDate.slice(0, 4))
    for (const asOf of [...new Set(asOfs)].sort()) {
      const base = reportInEffect(financials, asOf).eps
      const g = clamp(profile.growth + rng.normal(0, 0.05), -0.5, 1.5)
      let mean = base * (1 + g * 0.35)
      for (const fiscalYear of [year, year + 1]) {
        if (fiscalYear > year) mean *= 1 + g
        const m = Math.max(0.01, mean)
        forecasts.push({
          asOf,
          fiscalYear,
          epsMean: rounded(m, 4),
          epsLow: rounded(m * rng.float(0.82, 0.95), 4),
          epsHigh: rounded(m * rng.float(1.05, 1.22), 4),
        })
      }
    }
  }
  return { financials, forecasts }
}
