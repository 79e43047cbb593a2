/**
 * Daily increment: one new trading day for the whole market as a tushare bundle (stock_basic, trade_cal,
 * daily, adj_factor, daily_basic, index_daily, stock_st, suspend_d, stk_limit), imported on top of a stored
 * history. Baseline measured in the same run: the same day's bars as one native bars.csv (COPY + upsert, no
 * merge). Prints seconds per round, the median and the ratio. Not a test: it asserts nothing.
 *
 *   npx tsx bench/increment.bench.ts [--codes 5400] [--history 250] [--rounds 5]
 *
 * BENCH_DATABASE_URL names a PostgreSQL server (a database `stockplan_bench_<random>` is created and dropped);
 * without it an embedded PostgreSQL is started in a temp dir.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import pino from 'pino'
import { importDirectory } from '../src/jobs/import/import-job.js'
import { silentProgress } from '../src/jobs/progress.js'
import { createDb } from '../src/storage/db.js'
import { createImportStore } from '../src/storage/import.repository.js'
import { migrateToLatest } from '../src/storage/migrate.js'
import { flag, median, openScratchDatabase } from './support.js'

const codesWanted = flag('codes', 5400)
const historyDays = flag('history', 250)
const rounds = flag('rounds', 5)

const PREFIXES: ReadonlyArray<readonly [string, string]> = [
  ['600', 'SH'],
  ['601', 'SH'],
  ['603', 'SH'],
  ['000', 'SZ'],
  ['002', 'SZ'],
  ['300', 'SZ'],
  ['688', 'SH'],
  ['920', 'BJ'],
]

function codes(count: number): string[] {
  const out: string[] = []
  for (let i = 0; out.length < count; i++) {
    const [prefix, exchange] = PREFIXES[i % PREFIXES.length]!
    out.push(`${prefix}${String(Math.floor(i / PREFIXES.length)).padStart(3, '0')}.${exchange}`)
  }
  return out
}

function weekdays(from: number, count: number): Date[] {
  const days: Date[] = []
  for (let t = from; days.length < count; t += 86_400_000) {
    const weekday = new Date(t).getUTCDay()
    if (weekday !== 0 && weekday !== 6) days.push(new Date(t))
  }
  return days
}

const iso = (d: Date): string => d.toISOString().slice(0, 10)
const compact = (d: Date): string => iso(d).replaceAll('-', '')

let seed = 42
function random(): number {
  seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0
  return seed / 4_294_967_296
}

/** Native bars.csv for the stored history (loaded once, untimed). */
async function writeHistory(dir: string, all: string[], days: Date[]): Promise<void> {
  await mkdir(dir, { recursive: true })
  const lines = ['code,trade_date,open,high,low,close,pre_close,volume,amount,adj_factor']
  for (const code of all) {
    let close = 5 + random() * 95
    for (const day of days) {
      const pre = close
      close = Math.max(1, pre * (1 + (random() - 0.5) * 0.06))
      const v = Math.round(1e5 + random() * 5e7)
      lines.push(
        `${code},${iso(day)},${pre.toFixed(2)},${Math.max(pre, close).toFixed(2)},${Math.min(pre, close).toFixed(2)},${close.toFixed(2)},${pre.toFixed(2)},${v},${(v * close).toFixed(2)},1`,
      )
    }
  }
  const names = ['code,name', ...all.map((c) => `${c},S${c.slice(0, 6)}`)]
  await writeFile(path.join(dir, 'securities.csv'), `${names.join('\n')}\n`)
  await writeFile(path.join(dir, 'bars.csv'), `${lines.join('\n')}\n`)
}

/** Every tushare file of one day; `suspended` codes appear only in suspend_d. Also the day's native bars.csv. */
async function writeDay(tushareDir: string, nativeDir: string, all: string[], day: Date): Promise<void> {
  await mkdir(tushareDir, { recursive: true })
  await mkdir(nativeDir, { recursive: true })
  const d = compact(day)
  const suspended = new Set(all.filter((_, i) => i % 100 === 7))
  const st = all.filter((_, i) => i % 37 === 3)
  const daily = ['ts_code,trade_date,open,high,low,close,pre_close,change,pct_chg,vol,amount']
  const native = ['code,trade_date,open,high,low,close,pre_close,volume,amount,adj_factor']
  const adj = ['ts_code,trade_date,adj_factor']
  const basic = ['ts_code,trade_date,close,turnover_rate,pe_ttm,pb,total_mv,circ_mv']
  const limits = ['trade_date,ts_code,pre_close,up_limit,down_limit']
  for (const code of all) {
    adj.push(`${code},${d},1`)
    if (suspended.has(code)) continue
    const pre = 5 + random() * 95
    const close = pre * (1 + (random() - 0.5) * 0.06)
    const vol = Math.round(1e3 + random() * 5e5)
    const amount = (vol * close) / 10
    const o = pre.toFixed(2)
    const hi = Math.max(pre, close).toFixed(2)
    const lo = Math.min(pre, close).toFixed(2)
    daily.push(
      `${code},${d},${o},${hi},${lo},${close.toFixed(2)},${o},${(close - pre).toFixed(2)},${((close / pre - 1) * 100).toFixed(4)},${vol},${amount.toFixed(3)}`,
    )
    native.push(
      `${code},${iso(day)},${o},${hi},${lo},${close.toFixed(2)},${o},${vol * 100},${(amount * 1000).toFixed(2)},1`,
    )
    basic.push(
      `${code},${d},${close.toFixed(2)},${(random() * 5).toFixed(4)},${(10 + random() * 50).toFixed(2)},2.1,1e6,8e5`,
    )
    limits.push(`${d},${code},${o},${(pre * 1.1).toFixed(2)},${(pre * 0.9).toFixed(2)}`)
  }
  const files: Record<string, string[]> = {
    'stock_basic.csv': ['ts_code,name,list_status', ...all.map((c) => `${c},S${c.slice(0, 6)},L`)],
    'trade_cal.csv': ['exchange,cal_date,is_open,pretrade_date', `SSE,${d},1,`],
    'daily.csv': daily,
    'adj_factor.csv': adj,
    'daily_basic.csv': basic,
    'index_daily.csv': [
      'ts_code,trade_date,close,open,high,low,pre_close,change,pct_chg,vol,amount',
      `000300.SH,${d},3500,3490,3510,3480,3490,10,0.28,1e8,2e8`,
      `399006.SZ,${d},1900,1890,1910,1880,1890,10,0.5,1e7,3e7`,
    ],
    'stock_st.csv': [
      'ts_code,name,trade_date,type,type_name',
      ...st.map((c) => `${c},ST${c.slice(0, 6)},${d},ST,风险警示`),
    ],
    'suspend_d.csv': ['ts_code,trade_date,suspend_timing,suspend_type', ...[...suspended].map((c) => `${c},${d},,S`)],
    'stk_limit.csv': limits,
  }
  for (const [name, lines] of Object.entries(files))
    await writeFile(path.join(tushareDir, name), `${lines.join('\n')}\n`)
  await writeFile(path.join(nativeDir, 'bars.csv'), `${native.join('\n')}\n`)
}

async function main(): Promise<void> {
  const log = pino({ level: process.env.BENCH_LOG_LEVEL ?? 'warn' })
  const work = await mkdtemp(path.join(os.tmpdir(), 'stockplan-increment-'))
  const server = await openScratchDatabase(log)
  const handle = createDb(server.url, log)
  try {
    await migrateToLatest(handle.db)
    const all = codes(codesWanted)
    const days = weekdays(Date.UTC(2025, 0, 2), historyDays + 2 * rounds)
    const history = days.slice(0, historyDays)
    const deps = { imports: createImportStore(handle.pool), log, progress: silentProgress }
    const signal = new AbortController().signal
    console.log(`writing ${all.length} codes x ${historyDays} days of history ...`)
    await writeHistory(path.join(work, 'history'), all, history)
    const loadStart = performance.now()
    await importDirectory(deps, { dir: path.join(work, 'history'), format: 'native' }, signal)
    console.log(`history loaded in ${((performance.now() - loadStart) / 1000).toFixed(1)} s (untimed setup)`)

    const bundle: number[] = []
    const baseline: number[] = []
    for (let r = 0; r < rounds; r++) {
      // alternate which path goes first so neither always meets a warmer cache
      const tushareDay = days[historyDays + 2 * r]!
      const nativeDay = days[historyDays + 2 * r + 1]!
      await writeDay(path.join(work, `t${r}`), path.join(work, `unused${r}`), all, tushareDay)
      await writeDay(path.join(work, `unused-t${r}`), path.join(work, `n${r}`), all, nativeDay)
      const runs: Array<[number[], string, 'tushare' | 'native']> = [
        [bundle, `t${r}`, 'tushare'],
        [baseline, `n${r}`, 'native'],
      ]
      if (r % 2 === 1) runs.reverse()
      for (const [into, dir, format] of runs) {
        const started = performance.now()
        const result = await importDirectory(deps, { dir: path.join(work, dir), format }, signal)
        into.push((performance.now() - started) / 1000)
        if (r === 0) console.log(`  ${format}: ${result.summary}`)
      }
      console.log(
        `round ${r + 1}: tushare bundle ${bundle.at(-1)!.toFixed(2)} s, native bars.csv ${baseline.at(-1)!.toFixed(2)} s`,
      )
    }
    const b = median(bundle)
    const n = median(baseline)
    console.log(
      `\none day, ${all.length} codes: tushare bundle (9 files, merged) median ${b.toFixed(2)} s ` +
        `(min ${Math.min(...bundle).toFixed(2)}, max ${Math.max(...bundle).toFixed(2)}); ` +
        `native bars.csv alone median ${n.toFixed(2)} s; ratio ${(b / n).toFixed(2)}x; budget 3 s`,
    )
  } finally {
    await handle.db.destroy()
    await server.close()
    await rm(work, { recursive: true, force: true })
  }
}

await main()
