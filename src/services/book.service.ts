import { barLimits } from '../domain/bar-limits.js'
import { type BookBar, type BookCosts, type BookMarket, DEFAULT_BOOK_COSTS } from '../domain/book.js'
import type { DayFactors } from '../domain/book-attribution.js'
import { assembleBookReport, type BookReport } from '../domain/book-report.js'
import type { BookCodeBars, BookRepository } from '../storage/book.repository.js'
import type { IsoDate } from '../storage/schema.js'
import type { BookDays } from './book-days.js'

/** Trading days read before a code's first target day for its 20-day traded value and volatility. */
const FIGURES_LOOK_BACK = 30
/** Trading days after a code's last target day its bars are read through at first: the sale of most leavers. */
const CARRY_MARGIN = 10

/**
 * The main book over the plan days between two dates (README "Track record"): each day's `main` as the PMS
 * receives it, the bars of its names, the universe's and the benchmark's daily returns, simulated and summarised.
 */
export function createBookService(deps: {
  book: BookRepository
  days: BookDays
  calendar: () => Promise<IsoDate[]>
  depth: number
  costs?: BookCosts
}) {
  return {
    async report(query: { from?: IsoDate; to?: IsoDate; benchmark: string }): Promise<BookReport> {
      const costs = deps.costs ?? DEFAULT_BOOK_COSTS
      const [dates, mains, calendar] = await Promise.all([
        deps.book.planDates(query.from, query.to),
        deps.book.mainLists(deps.depth, query.from, query.to),
        deps.calendar(),
      ])
      const index = new Map(calendar.map((d, i) => [d, i]))
      const traded = dates.filter((d) => index.has(d))
      const first = traded[0]
      const lastPlan = traded.at(-1)
      // the day after the last plan day, or the last plan day itself when nothing has traded since
      const end = lastPlan === undefined ? undefined : calendar[Math.min(index.get(lastPlan)! + 1, calendar.length - 1)]
      const plan = traded.map((date) => ({ date, main: mains.get(date) ?? [] }))
      const facts = await deps.days.facts(traded)
      // each code from the day after the first plan day that targets it, through a few days after the last one;
      // a book still holding it later (a leaver carried at its limit down, or suspended) has it read to the end
      const targeted = new Map<string, { first: IsoDate; last: IsoDate }>()
      for (const day of plan)
        for (const code of day.main) {
          const span = targeted.get(code)
          if (span) span.last = day.date
          else targeted.set(code, { first: day.date, last: day.date })
        }
      const readBars = async (codes: ReadonlyMap<string, { first: IsoDate; last: IsoDate | null }>) => {
        const wanted = [...codes].flatMap(([code, span]) => {
          const i = index.get(span.first)! + 1
          if (i >= calendar.length) return []
          const until = span.last === null ? undefined : calendar[index.get(span.last)! + CARRY_MARGIN]
          return [{ code, from: calendar[i]!, lookFrom: calendar[Math.max(0, i - FIGURES_LOOK_BACK)]!, until }]
        })
        return end === undefined ? [] : deps.book.bars(wanted, end)
      }
      const [codeBars, closes] = await Promise.all([
        readBars(targeted),
        first === undefined || end === undefined
          ? Promise.resolve(new Map<IsoDate, number>())
          : deps.book.indexCloses(query.benchmark, first, end),
      ])
      const bars = new Map<string, Map<IsoDate, BookBar>>()
      /** The last date each code's bars were read through (the end of the range when absent). */
      const readThrough = new Map<string, IsoDate>()
      const keep = (list: readonly BookCodeBars[]) => {
        for (const code of list) {
          const byDate = new Map<IsoDate, BookBar>()
          for (const b of code.bars)
            byDate.set(b.date, {
              open: b.open,
              close: b.close,
              adj: b.adj,
              ...barLimits(code, b, calendar),
              amount20d: b.amount20d,
              vol20d: b.vol20d,
            })
          bars.set(code.code, byDate)
          if (code.until) readThrough.set(code.code, code.until)
          else readThrough.delete(code.code)
        }
      }
      keep(codeBars)
      const universe = new Map<IsoDate, number | null>()
      const factors = new Map<IsoDate, DayFactors>()
      for (const { next, facts: f } of facts.values()) {
        universe.set(next, f.universeRet)
        factors.set(next, { size: f.sizeFactor, reversal: f.reversalFactor, matched: f.matchedRet })
      }
      const span = first === undefined || end === undefined ? [] : calendar.slice(index.get(first), index.get(end)! + 1)
      const beyond = new Set<string>()
      const market: BookMarket = {
        calendar: span,
        bar: (code, date) => {
          const through = readThrough.get(code)
          if (through !== undefined && date > through) beyond.add(code)
          return bars.get(code)?.get(date) ?? null
        },
        universeReturn: (date) => universe.get(date) ?? null,
        benchmarkReturn: (date) => {
          const i = index.get(date)
          const close = closes.get(date)
          const before = i === undefined || i === 0 ? undefined : closes.get(calendar[i - 1]!)
          return close === undefined || before === undefined ? null : close / before - 1
        },
      }
      const assemble = () =>
        assembleBookReport({
          plan,
          market,
          facts: [...facts.values()].map((d) => d.facts),
          factors,
          depth: deps.depth,
          costs,
          benchmark: query.benchmark,
        })
      const report = assemble()
      if (beyond.size === 0) return report
      // a name held past its bars read: read it to the end and simulate again (a rare, long carry)
      keep(await readBars(new Map([...beyond].map((code) => [code, { first: targeted.get(code)!.first, last: null }]))))
      return assemble()
    },
  }
}

export type BookService = ReturnType<typeof createBookService>
