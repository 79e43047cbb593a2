import type { TrackRecord } from './track-record.js'

/** The plan's skill as two figures an alert can hold a bound against. */
export interface Skill {
  /** Mean daily rank IC of the score over the last `ROLLING_IC_DAYS` plan days with one (NaN: none yet). */
  readonly rollingRankIc: number
  /** How far the main book's value is below its peak, as a fraction (0 at a new peak; NaN: no book yet). */
  readonly mainDrawdown: number
}

export const ROLLING_IC_DAYS = 20

export const NO_SKILL: Skill = Object.freeze({ rollingRankIc: Number.NaN, mainDrawdown: Number.NaN })

export function rollingRankIc(record: Pick<TrackRecord, 'ic'>, days = ROLLING_IC_DAYS): number {
  const values: number[] = []
  for (let i = record.ic.daily.length - 1; i >= 0 && values.length < days; i--) {
    const ic = record.ic.daily[i]!.score
    if (ic !== null && Number.isFinite(ic)) values.push(ic)
  }
  return values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length
}

/**
 * The main book's drawdown now: 1 − value / peak of the main list after costs (`portfolio.days[].cum_main`).
 * Issue 38 rewrites the main book's simulation; this is the one place that reads it.
 */
export function mainBookDrawdown(record: Pick<TrackRecord, 'portfolio'>): number {
  const days = record.portfolio.days
  if (days.length === 0) return Number.NaN
  let peak = 1 // the book starts at 1
  for (const day of days) peak = Math.max(peak, day.cum_main)
  const last = days.at(-1)!.cum_main
  return peak > 0 ? 1 - last / peak : Number.NaN
}

export function skillOf(record: Pick<TrackRecord, 'ic' | 'portfolio'>): Skill {
  return { rollingRankIc: rollingRankIc(record), mainDrawdown: mainBookDrawdown(record) }
}
