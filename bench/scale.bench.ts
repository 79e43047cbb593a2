/**
 * How the daily work grows with the market: for each size (codes x trading days) a fresh demo market in its own
 * embedded PostgreSQL, then generation, import, build and plan of the last date, a day of replay (build + plan of
 * one more date, stepped from the day before), 1000-code lookups (the first of the date, then kept), peak memory and
 * database size. Prints a line
 * per size as it goes and a Markdown table at the end. Asserts nothing. Full scale (5400 x 2500) takes a while:
 * run it once.
 *   npx tsx bench/scale.bench.ts [--sizes 1350x250,2700x250,5400x250,5400x1000,5400x2500] [--keep]
 * Each size lives in var/bench/scale/<codes>x<days> and is deleted afterwards unless --keep.
 */
import { rm } from 'node:fs/promises'
import path from 'node:path'
import { sql } from 'kysely'
import { createServices } from '../src/compose.js'
import { loadConfig } from '../src/config.js'
import { generateDemoMarket } from '../src/jobs/demo/generate.js'
import { importDirectory } from '../src/jobs/import/import-job.js'
import { silentProgress } from '../src/jobs/progress.js'
import { createLogger } from '../src/logger.js'
import { createImportStore } from '../src/storage/import.repository.js'
import { openStore } from '../src/storage/store.js'
import { median, timed } from './support.js'

const sizesArg = process.argv.indexOf('--sizes')
const sizes = (sizesArg >= 0 ? process.argv[sizesArg + 1]! : '1350x250,2700x250,5400x250,5400x1000,5400x2500')
  .split(',')
  .map((s) => s.split('x').map(Number) as [number, number])
const keep = process.argv.includes('--keep')
const signal = new AbortController().signal
const seconds = (ms: number): string => (ms / 1000).toFixed(1)

interface Row {
  readonly size: string
  readonly bars: number
  readonly generate: number
  readonly importMs: number
  readonly build: number
  readonly plan: number
  readonly day: number
  readonly verdict: number
  readonly logic: number
  readonly verdictFirst: number
  readonly logicFirst: number
  readonly rssMb: number
  readonly dbMb: number
}
const rows: Row[] = []

for (const [stocks, days] of sizes) {
  const root = path.resolve('var/bench/scale', `${stocks}x${days}`)
  await rm(root, { recursive: true, force: true })
  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: 'warn',
    DATABASE_URL: '',
    PG_DATA_DIR: path.join(root, 'pg'),
    PLAN_DATA_DIR: path.join(root, 'plan'),
  })
  const log = createLogger(config)
  const step = (what: string) => console.log(`${stocks} x ${days}: ${what}`)
  step('generating ...')
  const [summary, generate] = await timed(() =>
    generateDemoMarket(path.join(root, 'csv'), { stocks, days, seed: 42 }, silentProgress),
  )
  step(`generated in ${seconds(generate)} s; importing ...`)
  const store = await openStore(config, log, { poolMax: 20 })
  const services = createServices(config, log, store)
  try {
    const [, importMs] = await timed(() =>
      importDirectory(
        { imports: createImportStore(store.pool), log, progress: silentProgress },
        { dir: path.join(root, 'csv'), format: 'native' },
        signal,
      ),
    )
    step(`imported in ${seconds(importMs)} s; build and plan ...`)
    const calendar = await services.market.calendar(summary.lastDate)
    const [dayBefore, lastDate] = calendar.slice(-2) as [string, string]
    // the day before first, so that the last day is a day of replay: stepped from stored states
    const [, build] = await timed(() => services.steps.build({ date: dayBefore }, signal))
    const [, plan] = await timed(() => services.steps.plan({ date: dayBefore }, signal))
    const [, day] = await timed(async () => {
      await services.steps.build({ date: lastDate }, signal)
      await services.steps.plan({ date: lastDate }, signal)
    })
    step(`build ${seconds(build)} s, plan ${seconds(plan)} s, a day of replay ${seconds(day)} s; lookups ...`)
    const codes = (await store.db.selectFrom('securities').select('code').orderBy('code').limit(1000).execute()).map(
      (r) => r.code,
    )
    // the first request of the date computes what is then kept for the date; the median of the next five reuses it
    const lookup = async (fn: () => Promise<unknown>): Promise<[number, number]> => {
      const times: number[] = []
      for (let i = 0; i < 6; i++) times.push((await timed(fn))[1])
      return [times[0]!, median(times.slice(1))]
    }
    const [verdictFirst, verdict] = await lookup(() => services.verdicts.lookupBody({ codes, date: lastDate }))
    const [logicFirst, logic] = await lookup(() => services.logicStates.lookupBody({ codes, date: lastDate }))
    const db = await sql<{ size: string }>`select pg_database_size(current_database())::text as size`.execute(store.db)
    const row: Row = {
      size: `${stocks} x ${days}`,
      bars: summary.files['bars.csv'] ?? 0,
      generate,
      importMs,
      build,
      plan,
      day,
      verdict,
      logic,
      verdictFirst,
      logicFirst,
      rssMb: process.resourceUsage().maxRSS / 1024,
      dbMb: Number(db.rows[0]!.size) / 2 ** 20,
    }
    rows.push(row)
    step(
      `1000-code verdicts ${verdictFirst.toFixed(0)} ms first, ${verdict.toFixed(0)} ms then; logic states ` +
        `${logicFirst.toFixed(0)} ms first, ${logic.toFixed(0)} ms then; ` +
        `peak RSS ${row.rssMb.toFixed(0)} MB, database ${row.dbMb.toFixed(0)} MB`,
    )
  } finally {
    await services.close()
    await store.close()
    if (!keep) await rm(root, { recursive: true, force: true })
  }
}

console.log(
  '\n| codes x days | bars | generate | import | build | plan | a day of replay (build + plan) | 1000-code verdicts / logic states, first of the date | the same, then | peak RSS of the process | database |',
)
console.log('|---|---|---|---|---|---|---|---|---|---|---|')
for (const r of rows) {
  console.log(
    `| ${r.size} | ${(r.bars / 1e6).toFixed(2)} M | ${seconds(r.generate)} s | ${seconds(r.importMs)} s | ` +
      `${seconds(r.build)} s | ${seconds(r.plan)} s | ${seconds(r.day)} s | ` +
      `${r.verdictFirst.toFixed(0)} / ${r.logicFirst.toFixed(0)} ms | ${r.verdict.toFixed(0)} / ${r.logic.toFixed(0)} ms | ` +
      `${r.rssMb.toFixed(0)} MB | ${(r.dbMb / 1024).toFixed(2)} GB |`,
  )
}
