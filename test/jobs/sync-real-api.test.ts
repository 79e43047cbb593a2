/**
 * The sync against a stand-in that behaves like the real tushare API (issue 39; each behaviour's source is cited in
 * test/support/tushare-stand-in.ts): default columns when `fields` is empty, no `offset` paging for the bar
 * interfaces, reports loaded the day after their announcement, late factors and valuations, the daily quota, and
 * concept members without dates.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOperationalSource, createServices } from '../../src/compose.js'
import { importDirectory } from '../../src/jobs/import/import-job.js'
import { silentProgress } from '../../src/jobs/progress.js'
import { runSync, type SyncArgs } from '../../src/jobs/sync.job.js'
import type { Logger } from '../../src/logger.js'
import { createMetrics } from '../../src/services/metrics.js'
import { createImportStore } from '../../src/storage/import.repository.js'
import { testConfig } from '../support/config.js'
import { captureLog } from '../support/log-capture.js'
import { rows } from '../support/queries.js'
import { standInClient, syncDeps } from '../support/sync-store.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'
import { DAILY_QUOTA_MSG, startTushareStandIn, type TushareStandIn } from '../support/tushare-stand-in.js'

const GOLDEN = fileURLToPath(new URL('../data/tushare/bundle/', import.meta.url))
const TOKEN = 'tok-real-api-4e2b'

function sync(t: TestDatabase, url: string, log: Logger, today: string, args: SyncArgs) {
  const client = standInClient(url, TOKEN, log, 64 * 1024 * 1024)
  return runSync(syncDeps(t, client, log, today), args, new AbortController().signal)
}

/** The golden bundle with 600519.SH's corrected 2023 report (update_flag 1) before the original of the same day. */
async function fixture(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-real-api-'))
  await cp(GOLDEN, dir, { recursive: true })
  const file = path.join(dir, 'fina_indicator.csv')
  const [header, original, corrected, ...rest] = (await readFile(file, 'utf8')).trim().split('\n')
  expect(original!.endsWith(',0') && corrected!.endsWith(',1')).toBe(true)
  await writeFile(file, `${[header, corrected, original, ...rest].join('\n')}\n`)
  return dir
}

describe('sync against a tushare that behaves like the real one', () => {
  let dir: string
  let standIn: TushareStandIn
  const captured = captureLog('debug')

  beforeAll(async () => {
    dir = await fixture()
    standIn = await startTushareStandIn(dir)
  })
  afterAll(async () => {
    await standIn.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('reads a delisted code as delisted and lets an update_flag correction win (columns asked by name)', async () => {
    const t = await createTestDatabase()
    try {
      await sync(t, standIn.url, captured.log, '2024-04-22', { from: '2024-04-18', to: '2024-04-19' })
      expect(await rows(t, `select delist_date::text as d from securities where code = '600087.SH'`)).toEqual([
        { d: '2024-01-10' },
      ])
      // both versions of 2024-04-03 came on one day, the correction second-to-last in the file
      expect(await rows(t, `select roe from financials where code = '600519.SH' and ann_date = '2024-04-03'`)).toEqual([
        { roe: 0.3419 },
      ])
      const basic = standIn.calls.find((c) => c.api === 'stock_basic')!
      expect(basic.fields.split(',')).toEqual(expect.arrayContaining(['list_status', 'delist_date']))
    } finally {
      await t.drop()
    }
  })

  it('brings a report announced on the night of a sync with the next sync, dated by its announcement', async () => {
    const t = await createTestDatabase()
    const restated = `select ann_date::text as a from financials where code = '600519.SH' and end_date = '2023-12-31'`
    const appended = path.join(dir, 'fina_indicator.csv')
    const before = await readFile(appended, 'utf8')
    // a report announced on Wednesday the 24th: tushare loads it on the 25th
    await writeFile(
      appended,
      `${before}600519.SH,20240424,20231231,59.6,59.6,205.1,53.9,34.3,34.3,34.3,92.1,136500000000,88.9,19.3,18.1,19.2,1\n`,
    )
    const late = await startTushareStandIn(dir)
    try {
      late.today = '20240424'
      await sync(t, late.url, captured.log, '2024-04-24', { from: '2024-04-22', to: '2024-04-24' })
      expect(await rows(t, restated)).toEqual([{ a: '2024-04-03' }])
      late.today = '20240425'
      const next = await sync(t, late.url, captured.log, '2024-04-25', {})
      expect(next.days).toEqual(['2024-04-25'])
      expect(await rows(t, `${restated} order by 1`)).toEqual([{ a: '2024-04-03' }, { a: '2024-04-24' }])
    } finally {
      await late.close()
      await writeFile(appended, before)
      await t.drop()
    }
  })

  it('stops at a daily quota with a line naming the interface and when to rerun, keeping the whole days', async () => {
    const t = await createTestDatabase()
    try {
      standIn.fail.set('daily_basic', { code: 40203, msg: DAILY_QUOTA_MSG, when: { trade_date: '20240117' } })
      await expect(
        sync(t, standIn.url, captured.log, '2024-01-18', { from: '2024-01-15', to: '2024-01-18' }),
      ).rejects.toThrow(
        /^tushare daily_basic: the daily quota of this interface is used up \(抱歉，您每天最多访问该接口20000次.*rerun after midnight Shanghai time.*; the sync stops here: 2 whole days synced through 2024-01-16 kept$/,
      )
      expect(await rows(t, 'select distinct trade_date::text as d from daily_bars order by 1')).toEqual([
        { d: '2024-01-15' },
        { d: '2024-01-16' },
      ])
      // the 16th kept whole, valuations included
      const basics = (await readFile(path.join(dir, 'daily_basic.csv'), 'utf8')).split('\n')
      expect(await rows(t, `select count(*)::int as n from daily_basics where trade_date = '2024-01-16'`)).toEqual([
        { n: basics.filter((l) => l.split(',')[1] === '20240116').length },
      ])
    } finally {
      standIn.fail.delete('daily_basic')
      await t.drop()
    }
  })

  it('makes a board member without in_date valid from the day a sync saw it, and closes it when it leaves', async () => {
    const t = await createTestDatabase()
    const edges = `select theme, code, valid_from::text as f, valid_to::text as u from theme_edges
                   where code in ('688981.SH', '000001.SZ') order by theme, code, valid_from`
    try {
      await sync(t, standIn.url, captured.log, '2024-01-16', { from: '2024-01-15', to: '2024-01-16' })
      // tushare fills no in_date (暂无): seen on the 16th, the last day this sync imported
      expect(await rows(t, edges)).toEqual([
        { theme: expect.any(String), code: '000001.SZ', f: '2024-01-16', u: null },
        { theme: expect.any(String), code: '688981.SH', f: '2024-01-16', u: null },
      ])
      const boardOf = (code: string) => rows(t, `select theme from theme_edges where code = '${code}'`)
      expect(await boardOf('601318.SH')).toHaveLength(1)
      // the 17th's answer of 886001.TI lacks 688981.SH: closed on the 16th, the day before it went missing
      standIn.drop.set('ths_member', (row) => row.con_code === '688981.SH')
      await sync(t, standIn.url, captured.log, '2024-01-17', {})
      expect((await rows(t, edges)).find((e) => e.code === '688981.SH')).toMatchObject({
        f: '2024-01-16',
        u: '2024-01-16',
      })
      expect((await rows(t, edges)).find((e) => e.code === '000001.SZ')).toMatchObject({ f: '2024-01-16', u: null })
    } finally {
      standIn.drop.delete('ths_member')
      await t.drop()
    }
  })
})

/** A market of `codes` stocks over two days as a tushare bundle; stk_limit also lists `funds` funds, as tushare's does. */
async function wideMarket(codes: number, funds: number): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-wide-'))
  const days = ['20240115', '20240116']
  const code = (i: number) => (i < 3000 ? `${600000 + i}.SH` : `${String(i - 3000).padStart(6, '0')}.SZ`)
  const lines: Record<string, string[]> = {
    stock_basic: ['ts_code,symbol,name,area,industry,market,exchange,list_status,list_date,delist_date'],
    trade_cal: ['exchange,cal_date,is_open,pretrade_date', 'SSE,20240115,1,20240112', 'SSE,20240116,1,20240115'],
    daily: ['ts_code,trade_date,open,high,low,close,pre_close,change,pct_chg,vol,amount'],
    adj_factor: ['ts_code,trade_date,adj_factor'],
    daily_basic: ['ts_code,trade_date,close,turnover_rate,pe_ttm,pb,total_mv,circ_mv'],
    stk_limit: ['trade_date,ts_code,pre_close,up_limit,down_limit'],
    // answered with no rows
    namechange: ['ts_code,name,start_date,end_date,ann_date,change_reason'],
    suspend_d: ['ts_code,trade_date,suspend_timing,suspend_type'],
    index_daily: ['ts_code,trade_date,close,open,high,low,pre_close,change,pct_chg,vol,amount'],
    fina_indicator: ['ts_code,ann_date,end_date,eps,bps,roe,update_flag'],
    ths_index: ['ts_code,name,count,exchange,list_date,type'],
    ths_daily: ['ts_code,trade_date,close,open,high,low,pre_close,pct_change,vol'],
  }
  for (let i = 0; i < codes; i++) {
    const c = code(i)
    const exchange = c.endsWith('SH') ? 'SSE' : 'SZSE'
    lines.stock_basic!.push(`${c},${c.slice(0, 6)},S${i},,,主板,${exchange},L,20000101,`)
    for (const d of days) {
      lines.daily!.push(`${c},${d},10,11,9,10.5,10,0.5,5,1000,1050`)
      lines.adj_factor!.push(`${c},${d},1`)
      lines.daily_basic!.push(`${c},${d},10.5,1.2,20,2,100000,80000`)
      lines.stk_limit!.push(`${d},${c},10,11,9`)
    }
  }
  for (let i = 0; i < funds; i++) for (const d of days) lines.stk_limit!.push(`${d},${510000 + i}.SH,1,1.1,0.9`)
  for (const [file, content] of Object.entries(lines))
    await writeFile(path.join(dir, `${file}.csv`), `${content.join('\n')}\n`)
  return dir
}

describe('a full-market day from a tushare that does not page daily by offset', () => {
  it('takes all 5,400 bars of the day in one daily call, and stk_limit (which lists funds too) by code lists', async () => {
    const served = await wideMarket(5400, 500)
    const stored = await mkdtemp(path.join(os.tmpdir(), 'stockplan-wide-stored-'))
    const t = await createTestDatabase()
    const standIn = await startTushareStandIn(served, 6000)
    const log = captureLog('warn').log
    try {
      // the store holds the 15th
      for (const file of ['stock_basic', 'trade_cal', 'daily', 'adj_factor']) {
        const kept = (await readFile(path.join(served, `${file}.csv`), 'utf8'))
          .split('\n')
          .filter((l) => !l.includes('20240116'))
        await writeFile(path.join(stored, `${file}.csv`), kept.join('\n'))
      }
      await importDirectory(
        { imports: createImportStore(t.pool), log, progress: silentProgress },
        { dir: stored, format: 'tushare' },
        new AbortController().signal,
      )
      const result = await sync(t, standIn.url, log, '2024-01-16', {})
      expect(result.days).toEqual(['2024-01-16'])
      expect(
        await rows(
          t,
          `select count(*)::int as n, count(up_limit)::int as limits, count(turnover_rate)::int as turnover
                       from daily_bars where trade_date = '2024-01-16'`,
        ),
      ).toEqual([{ n: 5400, limits: 5400, turnover: 5400 }])
      expect(result.calls).toMatchObject({ daily: 1, adj_factor: 1, daily_basic: 1 })
      // 5,900 rows fill stk_limit's 5,800: asked again by two lists of 2,900 codes
      expect(result.calls.stk_limit).toBe(3)
      expect(standIn.calls.filter((c) => c.api === 'daily').every((c) => c.params.offset === undefined)).toBe(true)
      expect(result.incomplete).toEqual([])
    } finally {
      await standIn.close()
      await t.drop()
      await rm(served, { recursive: true, force: true })
      await rm(stored, { recursive: true, force: true })
    }
  }, 60_000)
})

describe('late data across two nights of the chain', () => {
  it('imports a day without a late factor and late valuations, publishes, and completes the day the next night', async () => {
    const t = await createTestDatabase()
    const work = await mkdtemp(path.join(os.tmpdir(), 'stockplan-late-'))
    const standIn = await startTushareStandIn(GOLDEN)
    try {
      // the store through the 16th
      for (const file of ['daily', 'adj_factor', 'daily_basic', 'stk_limit', 'suspend_d', 'index_daily', 'trade_cal']) {
        const [header, ...lines] = (await readFile(path.join(GOLDEN, `${file}.csv`), 'utf8')).trim().split('\n')
        const column = header!.split(',').indexOf(file === 'trade_cal' ? 'cal_date' : 'trade_date')
        const kept = lines.filter((l) => l.split(',')[column]! <= '20240116')
        await writeFile(path.join(work, `${file}.csv`), `${[header, ...kept].join('\n')}\n`)
      }
      for (const file of ['stock_basic', 'namechange'])
        await cp(path.join(GOLDEN, `${file}.csv`), path.join(work, `${file}.csv`))
      const log = captureLog('warn').log
      await importDirectory(
        { imports: createImportStore(t.pool), log, progress: silentProgress },
        { dir: work, format: 'tushare' },
        new AbortController().signal,
      )
      const config = testConfig({
        PLAN_DATA_DIR: path.join(work, 'plan'),
        TUSHARE_TOKEN: TOKEN,
        TUSHARE_URL: standIn.url,
        TUSHARE_CALLS_PER_MIN: '0',
      })
      const services = createServices(config, log, t)
      const metrics = createMetrics({ defaults: false })
      // a clock a minute on at each reading: the readings' short cache never answers for the night before
      let clock = Date.now()
      metrics.setOperationalSource(createOperationalSource(services, () => (clock += 60_000)))
      const gauge = async () =>
        /^stockplan_sync_oldest_incomplete_date_timestamp_seconds (\d+)$/m.exec(await metrics.registry.metrics())?.[1]
      const bar = `select count(*)::int as n from daily_bars where code = '600519.SH' and trade_date = '2024-01-17'`
      const valuations = `select count(*)::int as n from daily_basics where trade_date = '2024-01-17'`

      // night of the 17th: 600519.SH's factor and the whole daily_basic not loaded yet
      standIn.late.set('adj_factor', { day: '20240117', codes: ['600519.SH'] })
      standIn.late.set('daily_basic', { day: '20240117' })
      const first = await services.chain({ date: '2024-01-17' }, new AbortController().signal)
      expect(first.summary).toMatch(
        /^sync 2024-01-17\.\.2024-01-17: 1 day imported, \d+ tushare calls; incomplete \(asked again by the next sync\): 2024-01-17 \(adj_factor 1 code, daily_basic \d+ codes\)/,
      )
      expect(await rows(t, `select count(*)::int as n from stock_daily where trade_date = '2024-01-17'`)).not.toEqual([
        { n: 0 },
      ])
      expect(await rows(t, bar)).toEqual([{ n: 0 }])
      expect(await rows(t, valuations)).toEqual([{ n: 0 }])
      expect(await gauge()).toBe(String(Date.parse('2024-01-17') / 1000))

      // night of the 18th: tushare has them now
      standIn.late.clear()
      const second = await services.chain({ date: '2024-01-18' }, new AbortController().signal)
      expect(second.summary).toMatch(
        /^sync 2024-01-18\.\.2024-01-18: 1 day imported, \d+ tushare calls; completed late data of 2024-01-17/,
      )
      expect(await rows(t, `select count(*)::int as n from stock_daily where trade_date = '2024-01-18'`)).not.toEqual([
        { n: 0 },
      ])
      expect(await rows(t, bar)).toEqual([{ n: 1 }])
      expect(await rows(t, valuations)).not.toEqual([{ n: 0 }])
      expect(await rows(t, 'select count(*)::int as n from sync_incomplete_days')).toEqual([{ n: 0 }])
      expect(await gauge()).toBe('0')
      await services.close()
    } finally {
      await standIn.close()
      await t.drop()
      await rm(work, { recursive: true, force: true })
    }
  }, 90_000)

  it('stops the chain with a line saying why when daily itself is missing for a trading day', async () => {
    const t = await createTestDatabase()
    const work = await mkdtemp(path.join(os.tmpdir(), 'stockplan-nodaily-'))
    const standIn = await startTushareStandIn(GOLDEN)
    try {
      await cp(path.join(GOLDEN), work, { recursive: true })
      const log = captureLog('warn').log
      const services = createServices(
        testConfig({
          PLAN_DATA_DIR: path.join(work, 'plan'),
          TUSHARE_TOKEN: TOKEN,
          TUSHARE_URL: standIn.url,
          TUSHARE_CALLS_PER_MIN: '0',
        }),
        log,
        t,
      )
      await sync(t, standIn.url, log, '2024-01-16', { from: '2024-01-15', to: '2024-01-16' })
      standIn.late.set('daily', { day: '20240117' })
      await expect(services.chain({ date: '2024-01-17' }, new AbortController().signal)).rejects.toThrow(
        /^sync failed: tushare has no daily bars for 2024-01-17 yet \(it publishes them 15:00-17:00 Shanghai time\); rerun the sync after that/,
      )
      await services.close()
    } finally {
      await standIn.close()
      await t.drop()
      await rm(work, { recursive: true, force: true })
    }
  }, 60_000)
})
