/**
 * Which `fina_indicator_vip` calls bring a synced day's financial reports, point in time. tushare filters that
 * interface by one announcement date (`ann_date`) or one report period (`period`); its `start_date`/`end_date`
 * are report periods, not announcement dates. So a day asks for each calendar day announced since the previous
 * synced day (reports come out on weekends too), and a day with no synced day before it (an empty store, or a gap
 * longer than a quarter) asks for the last report periods whole and keeps what was announced by that day.
 */
import type { TushareTable } from '../datasource/tushare/client.js'

/** Report periods asked for by a day without a synced day before it: two years of quarters. */
export const BACKFILL_PERIODS = 8
/** A gap longer than this many calendar days is filled by report period rather than day by day. */
export const MAX_ANNOUNCEMENT_DAYS = 92

export type ReportQuery = { readonly ann_date: string } | { readonly period: string }

const DAY_MS = 86_400_000
const compact = (iso: string): string => iso.replaceAll('-', '')
const toIso = (ms: number): string => new Date(ms).toISOString().slice(0, 10)

/** The calls for `day`: one per calendar day after `previous` through `day`, or by report period. */
export function reportQueries(previous: string | undefined, day: string): ReportQuery[] {
  const end = Date.parse(`${day}T00:00:00Z`)
  if (previous !== undefined) {
    const start = Date.parse(`${previous}T00:00:00Z`) + DAY_MS
    if (start <= end && (end - start) / DAY_MS < MAX_ANNOUNCEMENT_DAYS) {
      const out: ReportQuery[] = []
      for (let t = start; t <= end; t += DAY_MS) out.push({ ann_date: compact(toIso(t)) })
      return out
    }
    if (start > end) return [{ ann_date: compact(day) }]
  }
  return reportPeriodsBy(day, BACKFILL_PERIODS).map((period) => ({ period }))
}

/** The last `count` quarter ends on or before `day`, newest first, as YYYYMMDD. */
export function reportPeriodsBy(day: string, count: number): string[] {
  const QUARTER_ENDS = ['0331', '0630', '0930', '1231']
  let year = Number(day.slice(0, 4))
  const monthDay = compact(day).slice(4)
  let quarter = QUARTER_ENDS.filter((q) => q <= monthDay).length - 1
  const out: string[] = []
  while (out.length < count) {
    if (quarter < 0) {
      year--
      quarter = 3
    }
    out.push(`${year}${QUARTER_ENDS[quarter]}`)
    quarter--
  }
  return out
}

/** The answers as one table, kept to reports announced by `day` (a period's later versions come on their day). */
export function announcedBy(answers: readonly TushareTable[], day: string): TushareTable | null {
  const filled = answers.filter((a) => a.fields.length > 0 && a.items.length > 0)
  if (filled.length === 0) return null
  const fields = filled[0]!.fields
  const last = compact(day)
  const items: (readonly unknown[])[] = []
  for (const answer of filled) {
    const order = fields.map((f) => answer.fields.indexOf(f))
    const annDate = answer.fields.indexOf('ann_date')
    for (const item of answer.items) {
      if (String(item[annDate]) <= last) items.push(order.map((i) => (i < 0 ? null : item[i])))
    }
  }
  return items.length > 0 ? { fields, items } : null
}
