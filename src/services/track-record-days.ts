import { throwIfAborted } from '../abort.js'
import { benchmarkReturn, SCORE_COMPONENTS } from '../domain/track-record.js'
import { type DayStats, summariseDay } from '../domain/track-record-day.js'
import type { PlanDayStatsRepository, StoredDayStats } from '../storage/plan-day-stats.repository.js'
import type { IsoDate } from '../storage/schema.js'
import type { TrackRecordRepository } from '../storage/track-record.repository.js'

/**
 * Plan days summarised from their rows per read: bounds the rows held at once (≈ 5,000 a day on the full market)
 * and keeps the repository's three 10-date batches in flight.
 */
const DAYS_PER_READ = 30

type IndexBars = ReadonlyMap<IsoDate, { readonly open: number; readonly close: number }>

/** Runs of consecutive dates of `all` that are in `wanted`, each cut to at most DAYS_PER_READ dates. */
function readRanges(all: readonly IsoDate[], wanted: ReadonlySet<IsoDate>): Array<[IsoDate, IsoDate]> {
  const ranges: Array<[IsoDate, IsoDate]> = []
  let run: IsoDate[] = []
  const close = () => {
    if (run.length > 0) ranges.push([run[0]!, run.at(-1)!])
    run = []
  }
  for (const date of all) {
    if (!wanted.has(date)) close()
    else {
      run.push(date)
      if (run.length === DAYS_PER_READ) close()
    }
  }
  close()
  return ranges
}

/**
 * Each plan day's track-record statistics (issue 28): the ones stored after the outcomes where they still hold,
 * the others summarised from the day's rows. Stored statistics hold for a query when they were counted against
 * the same benchmark return; the tier and daily rows they came from cannot have changed since (a trigger drops a
 * day's statistics when they do).
 */
export function createTrackRecordDays(deps: { records: TrackRecordRepository; stats: PlanDayStatsRepository }) {
  /** The plan days between two dates summarised from their rows. */
  async function fromRows(
    horizon: number,
    [from, to]: [IsoDate, IsoDate],
    benchmark: string,
    bars: IndexBars,
  ): Promise<StoredDayStats[]> {
    const days = await deps.records.days({ horizon, from, to, components: SCORE_COMPONENTS })
    return days.map((day) => {
      const benchRet = benchmarkReturn(bars, day.entryDate, day.exitDate)
      return { entryDate: day.entryDate, benchmark, stats: summariseDay({ ...day, benchRet }, SCORE_COMPONENTS) }
    })
  }

  return {
    /** Every plan day with outcomes at `horizon` between the dates, ascending, its hits counted against `benchmark`. */
    async days(horizon: number, benchmark: string, from?: IsoDate, to?: IsoDate): Promise<DayStats[]> {
      const [dates, stored] = await Promise.all([
        deps.stats.outcomeDates(horizon, from, to),
        deps.stats.read(horizon, from, to),
      ])
      if (dates.length === 0) return []
      const bars = await deps.records.indexBars(benchmark, dates[0]!, '9999-12-31')
      const byDate = new Map<IsoDate, DayStats>()
      for (const [date, s] of stored) {
        const benchRet = benchmarkReturn(bars, s.entryDate, s.stats.exitDate)
        if (s.benchmark === benchmark && s.stats.benchRet === benchRet) byDate.set(date, s.stats)
      }
      const missing = new Set(dates.filter((d) => !byDate.has(d)))
      for (const range of readRanges(dates, missing))
        for (const s of await fromRows(horizon, range, benchmark, bars)) byDate.set(s.stats.date, s.stats)
      return dates.map((d) => byDate.get(d)!)
    },

    /** Stores the statistics of every plan day with outcomes at `horizon` and none stored; returns how many. */
    async writeMissing(horizon: number, benchmark: string, signal: AbortSignal): Promise<number> {
      const [dates, stored] = await Promise.all([deps.stats.outcomeDates(horizon), deps.stats.storedDates(horizon)])
      const missing = new Set(dates.filter((d) => !stored.has(d)))
      if (missing.size === 0) return 0
      const bars = await deps.records.indexBars(benchmark, [...missing][0]!, '9999-12-31')
      let written = 0
      for (const range of readRanges(dates, missing)) {
        throwIfAborted(signal)
        const days = await fromRows(horizon, range, benchmark, bars)
        await deps.stats.write(horizon, days)
        written += days.length
      }
      return written
    },
  }
}

export type TrackRecordDays = ReturnType<typeof createTrackRecordDays>
