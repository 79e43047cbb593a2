import { DEFAULT_BOOK_DEPTH } from '../domain/book.js'
import { DEFAULT_BENCHMARK } from '../domain/outcomes.js'
import { createBookService } from '../services/book.service.js'
import { type BookDays, createBookDays } from '../services/book-days.js'
import { createTrackRecordService, type TrackRecordService } from '../services/track-record.service.js'
import { createTrackRecordDays, type TrackRecordDays } from '../services/track-record-days.js'
import { createBookRepository } from '../storage/book.repository.js'
import type { Db } from '../storage/db.js'
import type { MarketDataRepository } from '../storage/market-data.repository.js'
import { createPlanDayStatsRepository } from '../storage/plan-day-stats.repository.js'
import type { ReplayMemo } from '../storage/replay-memo.js'
import { createTrackRecordRepository } from '../storage/track-record.repository.js'

/** The track record's wiring in one place: its rows, its per-plan-day statistics, the main book and the report. */
export interface TrackRecordWiring {
  readonly service: TrackRecordService
  /** The per-plan-day statistics the outcomes step writes; a replay's read what its memo still holds. */
  days(memo?: ReplayMemo): TrackRecordDays
  /** The main book's per-plan-day facts, read from stored tier rows (a replay stores them at its end). */
  readonly bookDays: BookDays
}

export function createTrackRecordWiring(db: Db, market: MarketDataRepository): TrackRecordWiring {
  const records = createTrackRecordRepository(db)
  const stats = createPlanDayStatsRepository(db)
  const days = createTrackRecordDays({ records, stats })
  const book = createBookRepository(db)
  const storeCalendar = async (): Promise<string[]> => {
    const last = await market.latestBarDate()
    return last === undefined ? [] : market.calendar(last)
  }
  const bookDays = createBookDays({
    book,
    calendar: storeCalendar,
    benchmark: DEFAULT_BENCHMARK,
    depth: DEFAULT_BOOK_DEPTH,
  })
  return {
    service: createTrackRecordService({
      repository: records,
      days,
      book: createBookService({ book, days: bookDays, calendar: storeCalendar, depth: DEFAULT_BOOK_DEPTH }),
    }),
    days: (memo) =>
      memo ? createTrackRecordDays({ records: memo.trackRecords(records), stats: memo.dayStats(stats) }) : days,
    bookDays,
  }
}
