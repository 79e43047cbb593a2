/**
 * One day of the full market synced from a local tushare stand-in (test/support/tushare-stand-in.ts) on port 0:
 * the store holds the day before (imported as a bundle), `sync` fetches the day from the stand-in (every daily
 * interface, stock_basic L/D/P, trade_cal, namechange) and imports it through the bundle import. Prints the
 * seconds, the calls per interface and the rows, beside the same day imported from files (the floor: no HTTP).
 * Not a test: it asserts nothing.
 *
 *   npx tsx scripts/real-ashare-bundle.ts --out /tmp/real-bundle
 *   npx tsx bench/sync.bench.ts --dir /tmp/real-bundle [--day YYYYMMDD]
 *
 * The real set has no daily_basic, stk_limit, suspend_d, namechange, financial reports or concept boards:
 * daily_basic and stk_limit are made up for the day from its bars (turnover 1.5 %, limits ±10 % of pre_close), and
 * so are the reports (one per code announced that day: the whole market reporting at once, as on April's last
 * days); the others are empty.
 */
import { createReadStream } from 'node:fs'
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { parseArgs } from 'node:util'
import pino from 'pino'
import { createTushareClient } from '../src/datasource/tushare/client.js'
import { importDirectory } from '../src/jobs/import/import-job.js'
import { silentProgress } from '../src/jobs/progress.js'
import { runSync } from '../src/jobs/sync.job.js'
import { createDb } from '../src/storage/db.js'
import { createImportStore } from '../src/storage/import.repository.js'
import { migrateToLatest } from '../src/storage/migrate.js'
import { createSyncGapsRepository } from '../src/storage/sync-gaps.repository.js'
import { startTushareStandIn } from '../test/support/tushare-stand-in.js'
import { openScratchDatabase } from './support.js'

async function linesOf(file: string, keep: (line: string) => boolean): Promise<string[]> {
  const out: string[] = []
  let first = true
  for await (const line of readline.createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity })) {
    if (first || keep(line)) out.push(line)
    first = false
  }
  return out
}

/** The bundle's files cut to `days`, with daily_basic and stk_limit made up from the bars. */
async function cut(source: string, dir: string, days: readonly string[]): Promise<number> {
  const onDays = (line: string) => days.some((d) => line.includes(`,${d},`))
  for (const file of ['daily', 'adj_factor', 'index_daily', 'trade_cal']) {
    await writeFile(
      path.join(dir, `${file}.csv`),
      `${(await linesOf(path.join(source, `${file}.csv`), onDays)).join('\n')}\n`,
    )
  }
  await copyFile(path.join(source, 'stock_basic.csv'), path.join(dir, 'stock_basic.csv'))
  const [header, ...bars] = await linesOf(path.join(dir, 'daily.csv'), () => true)
  const at = (name: string) => header!.split(',').indexOf(name)
  const basic = ['ts_code,trade_date,close,turnover_rate,pe_ttm,pb,total_mv,circ_mv']
  const reports = ['ts_code,ann_date,end_date,eps,bps,ocfps,roe,grossprofit_margin,debt_to_assets,or_yoy,netprofit_yoy']
  const limit = ['trade_date,ts_code,pre_close,up_limit,down_limit']
  for (const bar of bars) {
    const f = bar.split(',')
    const close = Number(f[at('close')])
    const pre = Number(f[at('pre_close')] || f[at('open')])
    basic.push(`${f[0]},${f[1]},${close},1.5,20,2,${(close * 1e5).toFixed(2)},${(close * 8e4).toFixed(2)}`)
    limit.push(`${f[1]},${f[0]},${pre},${(pre * 1.1).toFixed(2)},${(pre * 0.9).toFixed(2)}`)
    const lastYear = Number(f[1]!.slice(0, 4)) - 1
    reports.push(
      `${f[0]},${f[1]},${lastYear}1231,${(close / 20).toFixed(2)},${(close / 2).toFixed(2)},0.8,10,30,45,8,6`,
    )
  }
  await writeFile(path.join(dir, 'fina_indicator.csv'), `${reports.join('\n')}\n`)
  await writeFile(path.join(dir, 'daily_basic.csv'), `${basic.join('\n')}\n`)
  await writeFile(path.join(dir, 'stk_limit.csv'), `${limit.join('\n')}\n`)
  await writeFile(path.join(dir, 'suspend_d.csv'), 'ts_code,trade_date,suspend_timing,suspend_type\n')
  await writeFile(path.join(dir, 'namechange.csv'), 'ts_code,name,start_date,end_date,ann_date,change_reason\n')
  // no concept boards in the real set: the stand-in answers the three interfaces with no rows
  await writeFile(path.join(dir, 'ths_index.csv'), 'ts_code,name,count,exchange,list_date,type\n')
  await writeFile(path.join(dir, 'ths_member.csv'), 'ts_code,con_code,con_name,weight,in_date,out_date,is_new\n')
  await writeFile(path.join(dir, 'ths_daily.csv'), 'ts_code,trade_date,close,open,high,low,pre_close,pct_change,vol\n')
  return bars.length
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { dir: { type: 'string' }, day: { type: 'string' } } })
  if (!values.dir) throw new Error('--dir BUNDLE is required (make one with scripts/real-ashare-bundle.ts --out DIR)')
  const calendar = await linesOf(path.join(values.dir, 'trade_cal.csv'), (l) => l.split(',')[2] === '1')
  const open = calendar.slice(1).map((l) => l.split(',')[1]!)
  const day = values.day ?? open.at(-1)!
  const before = open[open.indexOf(day) - 1]!
  const log = pino({ level: 'warn' })
  const work = await mkdtemp(path.join(os.tmpdir(), 'stockplan-bench-sync-'))
  const served = path.join(work, 'served')
  const stored = path.join(work, 'stored')
  const database = await openScratchDatabase(log)
  const { db, pool } = createDb(database.url, log)
  await Promise.all([mkdir(served), mkdir(stored)])
  try {
    const bars = await cut(values.dir, served, [before, day])
    await cut(values.dir, stored, [before])
    await migrateToLatest(db)
    const signal = new AbortController().signal
    const importBundle = (dir: string, s: AbortSignal) =>
      importDirectory(
        { imports: createImportStore(pool), log, progress: silentProgress },
        { dir, format: 'tushare' },
        s,
      )
    await importBundle(stored, signal)
    const standIn = await startTushareStandIn(served, 6000)
    const iso = (d: string) => `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6)}`
    console.log(
      `load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}; ${bars} bars over ${before} and ${day}; syncing ${day}`,
    )
    try {
      const client = createTushareClient({
        url: standIn.url,
        token: 'bench',
        callsPerMinute: 0,
        rateLimits: {},
        fetch: globalThis.fetch,
        now: Date.now,
        sleep: async () => undefined,
        log,
        callTimeoutMs: 60_000,
        maxAnswerBytes: 64 * 1024 * 1024,
        maxPages: 50,
      })
      const started = performance.now()
      const result = await runSync(
        {
          client,
          importBundle,
          latestBarDate: async () => iso(before),
          today: () => iso(day),
          log,
          progress: silentProgress,
          benchmark: '000300.SH',
          gaps: createSyncGapsRepository(pool),
          reportWindowDays: 5,
        },
        { from: iso(day), to: iso(day) },
        signal,
      )
      const seconds = (performance.now() - started) / 1000
      const calls = Object.values(result.calls).reduce((n, c) => n + c, 0)
      console.log(`sync of ${day}: ${seconds.toFixed(2)} s, ${calls} calls ${JSON.stringify(result.calls)}`)
      console.log(`  ${result.summary}`)
    } finally {
      await standIn.close()
    }
    // the floor: the same day's files imported directly (no HTTP, no JSON) into a copy of the day before
    await pool.query(`delete from daily_bars where trade_date = $1`, [iso(day)])
    const dayOnly = path.join(work, 'day')
    await mkdir(dayOnly)
    await cut(served, dayOnly, [day])
    const started = performance.now()
    await importBundle(dayOnly, signal)
    console.log(`the same day imported from files: ${((performance.now() - started) / 1000).toFixed(2)} s`)
  } finally {
    await db.destroy()
    await database.close()
    await rm(work, { recursive: true, force: true })
  }
}

main().catch((err: unknown) => {
  console.error(err)
  process.exitCode = 1
})
