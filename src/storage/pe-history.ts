import { sql } from 'kysely'
import { lowerBound } from '../domain/stats.js'
import { VALUATION_RULES } from '../domain/valuation.js'
import type { Db } from './db.js'
import type { PeStats } from './market-data.repository.js'
import type { IsoDate } from './schema.js'

/** PE(TTM) percentiles on a date, as `MarketDataRepository.peStats` gives them. */
export type PeStatsSource = (date: IsoDate) => Promise<Map<string, PeStats>>

const DAY_MS = 86_400_000
const dayNumber = (date: IsoDate): number => Date.parse(`${date}T00:00:00Z`) / DAY_MS

/** `date - interval '5 years'` as PostgreSQL computes it: the same month and day, the day clipped to the month. */
export function yearsBefore(date: IsoDate, years: number): IsoDate {
  const year = Number(date.slice(0, 4)) - years
  const month = Number(date.slice(5, 7))
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate()
  const day = Math.min(Number(date.slice(8, 10)), lastDay)
  return `${String(year).padStart(4, '0')}-${date.slice(5, 7)}-${String(day).padStart(2, '0')}`
}

/** `percentile_cont(p)` of an ascending array, with PostgreSQL's arithmetic (float8_lerp). */
export function percentileCont(sorted: readonly number[], p: number): number {
  const pos = p * (sorted.length - 1)
  const first = Math.floor(pos)
  const second = Math.ceil(pos)
  const lo = sorted[first]!
  return first === second ? lo : lo + (pos - first) * (sorted[second]! - lo)
}

/** One code's positive, clipped PEs by day, and the window of them now sorted. */
interface CodeWindow {
  readonly day: Int32Array
  readonly pe: Float64Array
  sorted: number[]
  /** The window is `day[lo..hi)`. */
  lo: number
  hi: number
}

function insertSorted(sorted: number[], value: number): void {
  sorted.splice(lowerBound(sorted, value), 0, value)
}

function removeSorted(sorted: number[], value: number): void {
  sorted.splice(lowerBound(sorted, value), 1)
}

/**
 * Every code's positive PE(TTM) from five years before `from` to `to`, read once, answering `peStats` for any date
 * in `from..to` from a window per code slid forward a day at a time (a replay asks in date order), instead of
 * sorting up to five years of the market again each day. A date before the last one asked starts the windows over.
 */
export async function loadPeHistory(db: Db, from: IsoDate, to: IsoDate): Promise<PeStatsSource> {
  const { lo, hi } = VALUATION_RULES.peWinsor
  // clipped by PostgreSQL, as peStats clips them, so that the values sorted here are the ones it sorts
  const { rows } = await sql<{ code: string; day: number[]; pe: number[] }>`
    select code,
      array_agg(trade_date - date '1970-01-01' order by trade_date) as day,
      array_agg(least(greatest(pe_ttm, ${lo}::float8), ${hi}::float8) order by trade_date) as pe
    from daily_basics
    where pe_ttm > 0 and trade_date > ${from}::date - interval '5 years' and trade_date <= ${to}::date
    group by code`.execute(db)
  const windows = rows.map((r) => ({
    code: r.code,
    w: { day: Int32Array.from(r.day), pe: Float64Array.from(r.pe), sorted: [], lo: 0, hi: 0 } as CodeWindow,
  }))
  let last: IsoDate | undefined
  return async (date) => {
    if (date < from || date > to) throw new Error(`PE history holds ${from}..${to}; asked for ${date}`)
    const today = dayNumber(date)
    const after = dayNumber(yearsBefore(date, 5))
    const restart = last !== undefined && date < last
    last = date
    const out = new Map<string, PeStats>()
    for (const { code, w } of windows) {
      if (restart) {
        w.sorted = []
        w.lo = 0
        w.hi = 0
      }
      for (; w.hi < w.day.length && w.day[w.hi]! <= today; w.hi++) insertSorted(w.sorted, w.pe[w.hi]!)
      for (; w.lo < w.hi && w.day[w.lo]! <= after; w.lo++) removeSorted(w.sorted, w.pe[w.lo]!)
      if (w.sorted.length === 0) continue
      const p = (q: number) => percentileCont(w.sorted, q)
      out.set(code, { days: w.sorted.length, p20: p(0.2), p50: p(0.5), p80: p(0.8) })
    }
    return out
  }
}
