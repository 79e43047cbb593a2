import { throwIfAborted } from '../abort.js'
import {
  type BookDayFacts,
  bookDayFacts,
  EXPOSURE_LOOK_BACK,
  type InvestableRow,
  investableFigures,
} from '../domain/book-exposures.js'
import type { BookRepository } from '../storage/book.repository.js'
import type { IsoDate } from '../storage/schema.js'

/** Plan days computed from one read of their closes: bounds what is held at once (≈ 5,000 codes × 120 days). */
const DAYS_PER_READ = 60

export interface BookDay {
  readonly date: IsoDate
  /** The next trading day, on whose close the universe return is taken. */
  readonly next: IsoDate
  readonly facts: BookDayFacts
}

/**
 * Each plan day's universe return and `main` exposures (`plan_day_book`): the stored ones, the others computed
 * from the store's rows. A plan day has facts once its next trading day has bars.
 */
export function createBookDays(deps: {
  book: BookRepository
  /** Trading days with bars up to the store's last, ascending. */
  calendar: () => Promise<IsoDate[]>
  benchmark: string
  depth: number
}) {
  /** The facts of plan dates (ascending) that have a next trading day, from one read of their span's closes. */
  async function compute(dates: readonly IsoDate[], calendar: readonly IsoDate[]): Promise<BookDay[]> {
    const index = new Map(calendar.map((d, i) => [d, i]))
    const planned = dates.filter((d) => index.has(d) && index.get(d)! + 1 < calendar.length)
    const first = planned[0]
    const last = planned.at(-1)
    if (first === undefined || last === undefined) return []
    const start = Math.max(0, index.get(first)! - EXPOSURE_LOOK_BACK)
    const span = calendar.slice(start, index.get(last)! + 2)
    const [mains, investable, closes, indexCloses] = await Promise.all([
      deps.book.mainLists(deps.depth, first, last),
      deps.book.investable(first, last),
      deps.book.adjustedCloses(span[0]!, span.at(-1)!, first, last),
      deps.book.indexCloses(deps.benchmark, span[0]!, span.at(-1)!),
    ])
    const aligned = (points: Iterable<readonly [IsoDate, number]>): Float64Array => {
      const out = new Float64Array(span.length).fill(Number.NaN)
      for (const [date, value] of points) {
        const k = index.get(date)
        if (k !== undefined && k >= start) out[k - start] = value
      }
      return out
    }
    const indexPx = aligned(indexCloses)
    const px = new Map([...closes].map(([code, c]) => [code, { industry: c.industry, px: aligned(c.closes) }]))
    return planned.map((date) => {
      const t = index.get(date)! - start
      const rows: InvestableRow[] = (investable.get(date) ?? []).map(({ code, amountMa20 }) => {
        const series = px.get(code)
        return {
          code,
          industry: series?.industry ?? null,
          amountMa20,
          ...(series
            ? investableFigures(series.px, indexPx, t)
            : { nextRet: null, beta: null, volatility: null, reversal: null }),
        }
      })
      return { date, next: calendar[index.get(date)! + 1]!, facts: bookDayFacts(rows, mains.get(date) ?? []) }
    })
  }

  return {
    /** Facts of the plan days between the dates (those with a next trading day), by plan date. */
    async facts(dates: readonly IsoDate[]): Promise<Map<IsoDate, BookDay>> {
      const out = new Map<IsoDate, BookDay>()
      if (dates.length === 0) return out
      const [stored, calendar] = await Promise.all([deps.book.readFacts(dates[0], dates.at(-1)), deps.calendar()])
      for (const [date, s] of stored) out.set(date, { date, ...s })
      const missing = dates.filter((d) => !out.has(d))
      for (let i = 0; i < missing.length; i += DAYS_PER_READ)
        for (const day of await compute(missing.slice(i, i + DAYS_PER_READ), calendar)) out.set(day.date, day)
      return out
    },

    /** Stores the facts of every plan day that has a next trading day and none stored; returns how many. */
    async writeMissing(signal: AbortSignal): Promise<number> {
      const [dates, stored, calendar] = await Promise.all([
        deps.book.planDates(),
        deps.book.factDates(),
        deps.calendar(),
      ])
      const missing = dates.filter((d) => !stored.has(d))
      let written = 0
      for (let i = 0; i < missing.length; i += DAYS_PER_READ) {
        throwIfAborted(signal)
        const days = await compute(missing.slice(i, i + DAYS_PER_READ), calendar)
        await deps.book.writeFacts(days)
        written += days.length
      }
      return written
    },
  }
}

export type BookDays = ReturnType<typeof createBookDays>
