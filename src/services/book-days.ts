import { throwIfAborted } from '../abort.js'
import { type BookDayFacts, bookDayFacts } from '../domain/book-exposures.js'
import type { BookRepository } from '../storage/book.repository.js'
import type { IsoDate } from '../storage/schema.js'

/** Trading days of bars before a plan day that its exposures read: 60 returns need 61 closes. */
const EXPOSURE_LOOK_BACK = 61

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
  async function compute(dates: readonly IsoDate[], calendar: readonly IsoDate[]): Promise<BookDay[]> {
    if (dates.length === 0) return []
    const index = new Map(calendar.map((d, i) => [d, i]))
    const mains = await deps.book.mainLists(deps.depth, dates[0], dates.at(-1))
    const out: BookDay[] = []
    for (const date of dates) {
      const i = index.get(date)
      const next = i === undefined ? undefined : calendar[i + 1]
      if (i === undefined || next === undefined) continue
      const lookFrom = calendar[Math.max(0, i - EXPOSURE_LOOK_BACK)]!
      const rows = await deps.book.investable(date, next, lookFrom, deps.benchmark)
      out.push({ date, next, facts: bookDayFacts(rows, mains.get(date) ?? []) })
    }
    return out
  }

  return {
    /** Facts of the plan days between the dates (those with a next trading day), by plan date. */
    async facts(dates: readonly IsoDate[]): Promise<Map<IsoDate, BookDay>> {
      const out = new Map<IsoDate, BookDay>()
      if (dates.length === 0) return out
      const [stored, calendar] = await Promise.all([deps.book.readFacts(dates[0], dates.at(-1)), deps.calendar()])
      for (const [date, s] of stored) out.set(date, { date, ...s })
      for (const day of await compute(
        dates.filter((d) => !out.has(d)),
        calendar,
      ))
        out.set(day.date, day)
      return out
    },

    /** Stores the facts of every plan day that has a next trading day and none stored; returns how many. */
    async writeMissing(signal: AbortSignal): Promise<number> {
      const [dates, stored, calendar] = await Promise.all([
        deps.book.planDates(),
        deps.book.factDates(),
        deps.calendar(),
      ])
      let written = 0
      for (const date of dates.filter((d) => !stored.has(d))) {
        throwIfAborted(signal)
        const days = await compute([date], calendar)
        await deps.book.writeFacts(days)
        written += days.length
      }
      return written
    },
  }
}

export type BookDays = ReturnType<typeof createBookDays>
