/**
 * Company review (DESIGN §8 "Company review"): a quality grade A-D from the latest financial report, the
 * invalidation conditions with their current values, and a one-line summary.
 *
 * Quality score 0..100 = weighted mean of sub-scores, each a linear band (`zero` -> 0, `full` -> 100, clamped;
 * leverage falls as debt rises). Growth is the mean of the revenue and net-profit growth bands that are present.
 * A missing metric drops out and the remaining weights are scaled up to 1. Grade: A >= 80, B >= 65, C >= 50, else D.
 */
import { deepFreeze, linearBand, roundTo } from './stats.js'

export interface FinancialSnapshot {
  readonly end_date: string
  readonly roe: number | null
  readonly gross_margin: number | null
  readonly ocf_to_np: number | null
  readonly debt_to_assets: number | null
  readonly revenue_yoy: number | null
  readonly np_yoy: number | null
  readonly eps: number | null
}

export type Grade = 'A' | 'B' | 'C' | 'D'

export interface Invalidation {
  readonly id: string
  readonly metric: string
  readonly op: '<' | '>'
  readonly threshold: number
  readonly current: number | null
  readonly triggered: boolean
}

export interface CompanyReview {
  readonly grade: Grade
  readonly score: number
  readonly report_period: string
  readonly metrics: Record<string, number | null>
  readonly invalidation: Invalidation[]
  readonly summary: string
}

type Metric = Exclude<keyof FinancialSnapshot, 'end_date'>

export const COMPANY_REVIEW_RULES = deepFreeze({
  /** Sub-score weights (sum 1). */
  weights: { roe: 0.3, gross_margin: 0.2, cash_conversion: 0.2, leverage: 0.15, growth: 0.15 },
  /** Linear bands: value `zero` scores 0, value `full` scores 100. */
  bands: {
    roe: { zero: 0, full: 0.2 },
    gross_margin: { zero: 0.1, full: 0.5 },
    ocf_to_np: { zero: 0.3, full: 1 },
    debt_to_assets: { zero: 0.8, full: 0.3 },
    revenue_yoy: { zero: -0.1, full: 0.2 },
    np_yoy: { zero: -0.2, full: 0.25 },
  },
  grades: { A: 80, B: 65, C: 50 },
  invalidation: [
    { id: 'roe_floor', metric: 'roe', op: '<', threshold: 0.08 },
    { id: 'cash_conversion', metric: 'ocf_to_np', op: '<', threshold: 0.5 },
    { id: 'leverage', metric: 'debt_to_assets', op: '>', threshold: 0.75 },
    { id: 'profit_collapse', metric: 'np_yoy', op: '<', threshold: -0.5 },
    { id: 'loss', metric: 'eps', op: '<', threshold: 0 },
  ],
  /** Invalidations that break the logic outright (`hasHardInvalidation`). */
  hard: ['loss', 'profit_collapse'],
} as const satisfies {
  invalidation: ReadonlyArray<{ id: string; metric: Metric; op: '<' | '>'; threshold: number }>
  [key: string]: unknown
})

const METRICS: readonly Metric[] = [
  'roe',
  'gross_margin',
  'ocf_to_np',
  'debt_to_assets',
  'revenue_yoy',
  'np_yoy',
  'eps',
]

const present = (v: number | null): v is number => v !== null && Number.isFinite(v)

function band(value: number | null, b: { zero: number; full: number }): number | null {
  return present(value) ? linearBand(value, b.zero, b.full) : null
}

/** The sub-scores (0..100, null when the metric is missing). */
function subScores(s: FinancialSnapshot): Record<keyof typeof COMPANY_REVIEW_RULES.weights, number | null> {
  const B = COMPANY_REVIEW_RULES.bands
  const growthParts = [band(s.revenue_yoy, B.revenue_yoy), band(s.np_yoy, B.np_yoy)].filter(
    (v): v is number => v !== null,
  )
  return {
    roe: band(s.roe, B.roe),
    gross_margin: band(s.gross_margin, B.gross_margin),
    cash_conversion: band(s.ocf_to_np, B.ocf_to_np),
    leverage: band(s.debt_to_assets, B.debt_to_assets),
    growth: growthParts.length === 0 ? null : growthParts.reduce((a, b) => a + b, 0) / growthParts.length,
  }
}

function gradeOf(score: number): Grade {
  const G = COMPANY_REVIEW_RULES.grades
  return score >= G.A ? 'A' : score >= G.B ? 'B' : score >= G.C ? 'C' : 'D'
}

/** `2026-09-30` -> `2026Q3`; anything that is not an ISO date is returned as given. */
export function reportPeriod(endDate: string): string {
  const m = /^(\d{4})-(\d{2})-\d{2}/.exec(endDate)
  const month = m ? Number(m[2]) : 0
  if (!m || month < 1 || month > 12) return endDate
  return `${m[1]}Q${Math.ceil(month / 3)}`
}

function pct(v: number): string {
  return `${roundTo(v * 100, 1)}%`
}

function describeTriggered(list: readonly Invalidation[]): string {
  const hit = list.filter((i) => i.triggered)
  if (hit.length === 0) return 'no invalidation triggered'
  return `triggered: ${hit.map((i) => `${i.id} (${i.metric} ${i.current} ${i.op} ${i.threshold})`).join(', ')}`
}

/**
 * The review of the latest report, or null when there are no financials or none of the quality metrics
 * (ROE, gross margin, cash conversion, leverage, growth) is present: a grade from nothing would be made up.
 */
export function reviewCompany(latest: FinancialSnapshot | null): CompanyReview | null {
  if (latest === null) return null
  const R = COMPANY_REVIEW_RULES
  const subs = subScores(latest)
  let weighted = 0
  let weightSum = 0
  let used = 0
  for (const key of Object.keys(R.weights) as (keyof typeof R.weights)[]) {
    const sub = subs[key]
    if (sub === null) continue
    weighted += sub * R.weights[key]
    weightSum += R.weights[key]
    used += 1
  }
  if (used === 0) return null
  const score = Math.round(roundTo(weighted / weightSum, 6))
  const grade = gradeOf(score)
  const metrics: Record<string, number | null> = {}
  for (const m of METRICS) metrics[m] = present(latest[m]) ? latest[m] : null
  const invalidation: Invalidation[] = R.invalidation.map((rule) => {
    const current = metrics[rule.metric] ?? null
    const triggered = current !== null && (rule.op === '<' ? current < rule.threshold : current > rule.threshold)
    return { id: rule.id, metric: rule.metric, op: rule.op, threshold: rule.threshold, current, triggered }
  })
  const total = Object.keys(R.weights).length
  const summary = `grade ${grade} (${score}/100) from ${used} of ${total} quality measures, report ${reportPeriod(latest.end_date)}; ${describeTriggered(invalidation)}`
  return { grade, score, report_period: reportPeriod(latest.end_date), metrics, invalidation, summary }
}

/** One line, e.g. `A (86): ROE 31%, gross margin 91%, cash conversion 1.05 · no invalidation triggered`. */
export function formatCompanyReview(r: CompanyReview | null): string | null {
  if (r === null) return null
  const m = r.metrics
  const show = (v: number | null | undefined, f: (x: number) => string) =>
    v === null || v === undefined ? 'n/a' : f(v)
  const parts = [
    `ROE ${show(m.roe, pct)}`,
    `gross margin ${show(m.gross_margin, pct)}`,
    `cash conversion ${show(m.ocf_to_np, (x) => x.toFixed(2))}`,
  ]
  const hit = r.invalidation.filter((i) => i.triggered).map((i) => i.id)
  const tail = hit.length === 0 ? 'no invalidation triggered' : `triggered: ${hit.join(', ')}`
  return `${r.grade} (${r.score}): ${parts.join(', ')} · ${tail}`
}

/** True when an invalidation that breaks the logic outright (`loss`, `profit_collapse`) is triggered. */
export function hasHardInvalidation(r: CompanyReview | null): boolean {
  if (r === null) return false
  const hard: readonly string[] = COMPANY_REVIEW_RULES.hard
  return r.invalidation.some((i) => i.triggered && hard.includes(i.id))
}

/**
 * The hard invalidation that fired, in words, e.g. `loss in 2026Q3 (EPS -0.12)` or `profit collapse in 2026Q3
 * (net profit -62% y/y)`; null when none did.
 */
export function hardInvalidationCause(r: CompanyReview | null): string | null {
  if (r === null) return null
  const hard: readonly string[] = COMPANY_REVIEW_RULES.hard
  const hit = r.invalidation.find((i) => i.triggered && hard.includes(i.id))
  if (!hit || hit.current === null) return null
  if (hit.id === 'loss') return `loss in ${r.report_period} (EPS ${hit.current})`
  if (hit.id === 'profit_collapse') return `profit collapse in ${r.report_period} (net profit ${pct(hit.current)} y/y)`
  return `${hit.id} in ${r.report_period} (${hit.metric} ${hit.current} ${hit.op} ${hit.threshold})`
}
