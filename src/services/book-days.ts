import { throwIfAborted } from '../abort.js'
import { barLimits } from '../domain/bar-limits.js'
import {
  type BookDayFacts,
  bookDayFacts,
  type DayBar,
  EXPOSURE_LOOK_BACK,
  type InvestableRow,
  investableFigures,
  universeLegs,
} from '../domain/book-exposures.js'
import { isEligible } from '../domain/tiers.js'
import type { BookRepository } from '../storage/book.repository.js'
import type { IsoDate } from '../storage/schema.js'

/** Plan days computed from one read of their bars: bounds what is held at once (≈ 5,000 codes × 120 days). */
const DAYS_PER_READ = 60

/** What a caller is shown of a long write (the jobs' terminal progress fits it). */
interface DaysProgress {
  start(label: string, total: number, unit: 'days'): void
  tick(count: number): void
  done(message: string): void
}

const NO_PROGRESS: DaysProgress = { start: () => undefined, tick: () => undefined, done: () => undefined }

export interface BookDay {
  readonly date: IsoDate
  /** The next trading day: the book's day, on which the universe's return is taken. */
  readonly next: IsoDate
  readonly facts: BookDayFacts
}

/**
 * Each plan day's universe (`book-universe.ts`: T's tier rows passing `isEligible`, each on D's bars) and `main`
 * exposures (`plan_day_book`): the stored ones, the others computed from the store's rows. A plan day has facts
 * once its next trading day has bars.
 */
export function createBookDays(deps: {
  book: BookRepository
  /** Trading days with bars up to the store's last, ascending. */
  calendar: () => Promise<IsoDate[]>
  benchmark: string
  depth: number
}) {
  /** The facts of plan dates (ascending) that have a next trading day, from one read of their span's bars. */
  async function compute(dates: readonly IsoDate[], calendar: readonly IsoDate[]): Promise<BookDay[]> {
    const index = new Map(calendar.map((d, i) => [d, i]))
    const planned = dates.filter((d) => index.has(d) && index.get(d)! + 1 < calendar.length)
    const first = planned[0]
    const last = planned.at(-1)
    if (first === undefined || last === undefined) return []
    const start = Math.max(0, index.get(first)! - EXPOSURE_LOOK_BACK)
    const span = calendar.slice(start, index.get(last)! + 2)
    const [mains, screened, indexCloses] = await Promise.all([
      deps.book.mainLists(deps.depth, first, last),
      deps.book.screenRows(first, last),
      deps.book.indexCloses(deps.benchmark, span[0]!, span.at(-1)!),
    ])
    const investable = new Map([...screened].map(([date, rows]) => [date, rows.filter(isEligible)]))
    const codes = new Set<string>()
    for (const rows of investable.values()) for (const r of rows) codes.add(r.code)
    const bars = await deps.book.universeBars([...codes], span[0]!, span.at(-1)!, calendar[index.get(first)! + 1]!)
    const aligned = (points: Iterable<readonly [IsoDate, number, ...unknown[]]>): Float64Array => {
      const out = new Float64Array(span.length).fill(Number.NaN)
      for (const [date, value] of points) {
        const k = index.get(date)
        if (k !== undefined && k >= start) out[k - start] = value
      }
      return out
    }
    const indexPx = aligned(indexCloses)
    const series = new Map(
      [...bars].map(([code, c]) => {
        const days = new Map<IsoDate, DayBar>()
        for (const b of c.bars)
          if (b.length === 9) {
            const [date, , open, close, adj, preClose, isSt, upLimit, downLimit] = b
            const { limitUp } = barLimits(c, { date, isSt, preClose, upLimit, downLimit }, calendar)
            days.set(date, { open, close, adj, limitUp })
          }
        return [code, { industry: c.industry, px: aligned(c.bars), days }]
      }),
    )
    return planned.map((date) => {
      const t = index.get(date)! - start
      const next = calendar[index.get(date)! + 1]!
      const rows: InvestableRow[] = (investable.get(date) ?? []).map(({ code, amount_ma20 }) => {
        const s = series.get(code)
        return {
          code,
          industry: s?.industry ?? null,
          amountMa20: amount_ma20,
          ...(s ? investableFigures(s.px, indexPx, t) : { ret20: null, beta: null, volatility: null, reversal: null }),
          ...universeLegs(s ? s.px[t]! : null, s?.days.get(next) ?? null),
        }
      })
      return { date, next, facts: bookDayFacts(rows, mains.get(date) ?? []) }
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
    /** A replay's book facts take about a minute for a year of days: `progress` shows them on a terminal. */
    async writeMissing(signal: AbortSignal, progress: DaysProgress = NO_PROGRESS): Promise<number> {
      const [dates, stored, calendar] = await Promise.all([
        deps.book.planDates(),
        deps.book.factDates(),
        deps.calendar(),
      ])
      // a day has facts once its next trading day has bars: the latest plan day waits for tomorrow's
      const next = new Set(calendar.slice(0, -1))
      const missing = dates.filter((d) => !stored.has(d) && next.has(d))
      if (missing.length === 0) return 0
      progress.start('book facts', missing.length, 'days')
      let written = 0
      for (let i = 0; i < missing.length; i += DAYS_PER_READ) {
        throwIfAborted(signal)
        const days = await compute(missing.slice(i, i + DAYS_PER_READ), calendar)
        await deps.book.writeFacts(days)
        written += days.length
        progress.tick(days.length)
      }
      progress.done(`book facts stored for ${written} day${written === 1 ? '' : 's'}`)
      return written
    },
  }
}

export type BookDays = ReturnType<typeof createBookDays>
