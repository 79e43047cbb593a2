/**
 * The main book's share of `stockplan evaluate` on an existing store (issue 38): times the whole track record,
 * the book's report alone, and the cohort record without it (the report's other reads), in the same process.
 * Prints figures; asserts nothing.
 *   npx tsx bench/book.bench.ts --store DIR [--rounds 3]
 */
import path from 'node:path'
import { createServices } from '../src/compose.js'
import { DEFAULT_BOOK_DEPTH } from '../src/domain/book.js'
import { DEFAULT_BENCHMARK } from '../src/domain/outcomes.js'
import { createLogger } from '../src/logger.js'
import { createBookService } from '../src/services/book.service.js'
import { createBookDays } from '../src/services/book-days.js'
import { createBookRepository } from '../src/storage/book.repository.js'
import { openStore } from '../src/storage/store.js'
import { benchConfig, flag, median, timed } from './support.js'

const rounds = flag('rounds', 3)
const storeFlag = process.argv.indexOf('--store')
if (storeFlag < 0) throw new Error('--store DIR is required (a replayed store: DIR/pg and DIR/plan)')
const config = benchConfig(path.resolve(process.argv[storeFlag + 1]!))
const log = createLogger(config)
const store = await openStore(config, log)
const services = createServices(config, log, store)
const repository = createBookRepository(store.db)
const calendar = async () => {
  const last = await services.market.latestBarDate()
  return last ? services.market.calendar(last) : []
}
const book = createBookService({
  book: repository,
  days: createBookDays({ book: repository, calendar, benchmark: DEFAULT_BENCHMARK, depth: DEFAULT_BOOK_DEPTH }),
  calendar,
  depth: DEFAULT_BOOK_DEPTH,
})
const query = { horizon: 5, benchmark: DEFAULT_BENCHMARK }
const whole: number[] = []
const bookOnly: number[] = []
for (let i = 0; i < rounds; i++) {
  whole.push((await timed(() => services.trackRecord.evaluate(query)))[1])
  bookOnly.push((await timed(() => book.report(query)))[1])
}
console.log(
  `evaluate (track record with the book): ${median(whole).toFixed(0)} ms (${whole.map((m) => m.toFixed(0)).join(', ')})`,
)
console.log(
  `the book's report alone: ${median(bookOnly).toFixed(0)} ms (${bookOnly.map((m) => m.toFixed(0)).join(', ')})`,
)
await services.close()
await store.close()
