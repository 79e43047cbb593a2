/**
 * The build's holding-streak read (PLAN_VERSION 6): the published `main` of the 20 plan dates before a build date,
 * over a store of `--days` published days of `--codes` rows each. Baseline measured in the same run: the same lists
 * read one date at a time (`previousTierDate` + `storedMain`, 40 round trips: what the build did before
 * `publishedMains`, when `storedMain` also read each date's whole day of rows). Prints milliseconds per read, the medians and the ratio. Not a test: it asserts nothing.
 *
 *   npx tsx bench/holding-streaks.bench.ts [--codes 5100] [--days 120] [--rounds 20]
 *
 * BENCH_DATABASE_URL names a PostgreSQL server (a database `stockplan_bench_<random>` is created and dropped);
 * without it an embedded PostgreSQL is started in a temp dir.
 */
import pino from 'pino'
import { EDGE_RULES } from '../src/domain/expected-edge.js'
import { createDb } from '../src/storage/db.js'
import { migrateToLatest } from '../src/storage/migrate.js'
import { createPlanInputRepository, type PlanInputRepository } from '../src/storage/plan-input.repository.js'
import { flag, isoWeekdays, median, openScratchDatabase, timed } from './support.js'

const codesWanted = flag('codes', 5100)
const daysWanted = flag('days', 120)
const rounds = flag('rounds', 20)
const MAIN = 20

const log = pino({ level: 'warn' })

/** The per-date walk the build used before `publishedMains`. */
async function walkOneDateAtATime(inputs: PlanInputRepository, date: string, days: number): Promise<string[][]> {
  const lists: string[][] = []
  let before = await inputs.previousTierDate(date)
  while (before !== undefined && lists.length < days) {
    const main = await inputs.storedMain(before)
    if (main === undefined) break
    lists.push(main)
    before = await inputs.previousTierDate(before)
  }
  return lists
}

async function main(): Promise<void> {
  const scratch = await openScratchDatabase(log)
  const handle = createDb(scratch.url, log)
  try {
    await migrateToLatest(handle.db)
    const codes = Array.from({ length: codesWanted }, (_, i) => `${String(i).padStart(6, '0')}.SZ`)
    const dates = isoWeekdays(daysWanted + 1, '2025-01-02')
    const buildDate = dates.pop()!
    process.stdout.write(`writing ${dates.length} days × ${codes.length} codes`)
    for (const [d, date] of dates.entries()) {
      // main rotates a name a day, so streaks run from 1 to 20 days
      const inMain = new Set(Array.from({ length: MAIN }, (_, k) => (d + k * 7) % codes.length))
      await handle.db
        .insertInto('tier_scores')
        .values(
          codes.map((code, i) => ({
            trade_date: date,
            code,
            score: 50,
            rank: i + 1,
            tier: 'reject',
            build_id: 'b',
            graph_evidence: '[]',
          })),
        )
        .execute()
      await handle.db
        .insertInto('stock_daily')
        .values(
          codes.map((code, i) => ({
            code,
            trade_date: date,
            verdict: inMain.has(i) ? ('main' as const) : ('reject' as const),
            card_rank: inMain.has(i) ? i : null,
            plan_version: '6',
            logic_state: 'forming' as const,
            score_ema: 50,
            state_since: date,
            state_rule: 'r',
            days_in_state: 1,
            above_days: 0,
            absent_days: 0,
            code_version: 'bench',
          })),
        )
        .execute()
      if (d % 20 === 19) process.stdout.write('.')
    }
    await handle.pool.query('analyze')
    console.log(' done')

    const inputs = createPlanInputRepository(handle.db)
    const oneQuery: number[] = []
    const walk: number[] = []
    for (let r = 0; r < rounds; r++) {
      const [fast, fastMs] = await timed(() => inputs.publishedMains(buildDate, EDGE_RULES.horizon))
      const [slow, slowMs] = await timed(() => walkOneDateAtATime(inputs, buildDate, EDGE_RULES.horizon))
      if (JSON.stringify(fast) !== JSON.stringify(slow)) throw new Error('the two reads disagree')
      oneQuery.push(fastMs)
      walk.push(slowMs)
    }
    const [q, w] = [median(oneQuery), median(walk)]
    console.log(`publishedMains (one query):       median ${q.toFixed(1)} ms over ${rounds} reads`)
    console.log(`one date at a time (baseline):    median ${w.toFixed(1)} ms over ${rounds} reads`)
    console.log(`ratio baseline / one query:       ${(w / q).toFixed(1)}×`)
  } finally {
    await handle.db.destroy()
    await scratch.close()
  }
}

await main()
