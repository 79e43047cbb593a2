import { appendFile, cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTushareClient } from '../../src/datasource/tushare/client.js'
import { importDirectory } from '../../src/jobs/import/import-job.js'
import { silentProgress } from '../../src/jobs/progress.js'
import { runSync, type SyncArgs } from '../../src/jobs/sync.job.js'
import type { Logger } from '../../src/logger.js'
import { createImportStore } from '../../src/storage/import.repository.js'
import { captureLog } from '../support/log-capture.js'
import { rows } from '../support/queries.js'
import { syncDeps } from '../support/sync-store.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'
import {
  NO_PERMISSION_MSG,
  RATE_LIMIT_MSG,
  startTushareStandIn,
  type TushareStandIn,
} from '../support/tushare-stand-in.js'

const GOLDEN = fileURLToPath(new URL('../data/tushare/bundle/', import.meta.url))
// the golden bundle plus a restatement of 600519.SH's 2023 report announced on 2024-04-24 (the first version came
// out on 2024-04-03): the stand-in answers from it, and the bundles compared with the sync are cut from it
const RESTATEMENT =
  '600519.SH,20240424,20231231,59.6,59.6,205.1,53.9,34.3,34.3,34.3,92.1,136500000000,88.9,19.3,18.1,19.2,1'
const TOKEN = 'tok-7f3a9c-secret'
// four trading days with a suspension (000540.SZ, 16th and 17th) and an ST period (600301.SH)
const FROM = '2024-01-15'
const TO = '2024-01-18'

/** The tables a sync writes, each in a fixed order. */
const TABLES = {
  daily_bars: 'select * from daily_bars order by code, trade_date',
  index_bars: 'select * from index_bars order by code, trade_date',
  daily_basics: 'select * from daily_basics order by code, trade_date',
  securities: 'select * from securities order by code',
  trading_calendar: 'select * from trading_calendar order by cal_date',
  st_periods: 'select * from st_periods order by code, start_date',
  concept_boards: 'select * from concept_boards order by code',
  concept_bars: 'select * from concept_bars order by code, trade_date',
  theme_edges: 'select * from theme_edges order by theme, segment, code, valid_from',
  financials: 'select * from financials order by code, end_date, ann_date',
}
const FINANCIALS = 'select code, end_date::text, ann_date::text, roe from financials order by code, end_date, ann_date'

async function fixtureBundle(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-sync-fixture-'))
  await cp(GOLDEN, dir, { recursive: true })
  await appendFile(path.join(dir, 'fina_indicator.csv'), `${RESTATEMENT}\n`)
  return dir
}

async function snapshot(t: TestDatabase): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {}
  for (const [table, query] of Object.entries(TABLES)) out[table] = await rows(t, query)
  return out
}

/**
 * The same data as a bundle: the fixture's files cut to FROM..TO (reference files whole, the calendar from FROM on),
 * and the financial reports announced by TO.
 */
async function bundleOfRange(fixture: string, range: { from: string; to: string } = { from: FROM, to: TO }) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-sync-bundle-'))
  const [from, to] = [range.from.replaceAll('-', ''), range.to.replaceAll('-', '')]
  const daily = [
    'daily',
    'adj_factor',
    'daily_basic',
    'stk_limit',
    'suspend_d',
    'index_daily',
    'ths_daily',
    'trade_cal',
    'fina_indicator',
  ]
  const dateColumn: Record<string, string> = { trade_cal: 'cal_date', fina_indicator: 'ann_date' }
  for (const file of daily) {
    const [header, ...lines] = (await readFile(path.join(fixture, `${file}.csv`), 'utf8')).trim().split('\n')
    const column = header!.split(',').indexOf(dateColumn[file] ?? 'trade_date')
    const kept = lines.filter((l) => {
      const d = l.split(',')[column]!
      // the calendar as a sync keeps it: from the first day on, the sessions ahead included
      return (file === 'fina_indicator' || d >= from) && (file === 'trade_cal' || d <= to)
    })
    await writeFile(path.join(dir, `${file}.csv`), `${[header, ...kept].join('\n')}\n`)
  }
  for (const file of ['stock_basic', 'namechange', 'ths_index', 'ths_member']) {
    await writeFile(path.join(dir, `${file}.csv`), await readFile(path.join(fixture, `${file}.csv`)))
  }
  return dir
}

interface Harness {
  readonly waits: number[]
  sync(args: SyncArgs, signal?: AbortSignal): ReturnType<typeof runSync>
}

function harness(t: TestDatabase, standIn: TushareStandIn | { url: string }, log: Logger, today = TO): Harness {
  const waits: number[] = []
  let clock = 0
  const client = createTushareClient({
    url: standIn.url,
    token: TOKEN,
    callsPerMinute: 0,
    rateLimits: {},
    fetch: globalThis.fetch,
    now: () => clock,
    sleep: async (ms) => {
      waits.push(ms)
      clock += ms
    },
    log,
    callTimeoutMs: 10_000,
    maxAnswerBytes: 16 * 1024 * 1024,
    maxPages: 50,
  })
  return {
    waits,
    sync: (args, signal = new AbortController().signal) => runSync(syncDeps(t, client, log, today), args, signal),
  }
}

describe('stockplan sync from a tushare stand-in', () => {
  let standIn: TushareStandIn
  let synced: TestDatabase
  let imported: TestDatabase
  let bundle: string
  let fixture: string
  const captured = captureLog('debug')
  let expected: Record<string, unknown[]>

  beforeAll(async () => {
    fixture = await fixtureBundle()
    // a tushare that fills the members' dates, as the bundle has them
    standIn = await startTushareStandIn(fixture, 100, { memberDates: true })
    ;[synced, imported] = await Promise.all([createTestDatabase(), createTestDatabase()])
    bundle = await bundleOfRange(fixture)
    await importDirectory(
      { imports: createImportStore(imported.pool), log: captured.log, progress: silentProgress },
      { dir: bundle, format: 'tushare' },
      new AbortController().signal,
    )
    expected = await snapshot(imported)
  })
  afterAll(async () => {
    await standIn.close()
    await Promise.all([synced.drop(), imported.drop()])
    await rm(bundle, { recursive: true, force: true })
    await rm(fixture, { recursive: true, force: true })
  })

  it('syncs several days into what the same data imported as a bundle gives, waiting out a rate limit', async () => {
    standIn.fail.set('adj_factor', { code: 40203, msg: RATE_LIMIT_MSG, times: 1, when: { trade_date: '20240116' } })
    const { sync, waits } = harness(synced, standIn, captured.log)
    const result = await sync({ from: FROM, to: TO })
    expect(result.days).toEqual(['2024-01-15', '2024-01-16', '2024-01-17', '2024-01-18'])
    expect(waits).toEqual([60_000])
    expect(await snapshot(synced)).toEqual(expected)
    expect((expected.daily_bars as unknown[]).length).toBeGreaterThan(30)
    // one call per day per daily interface (one more for the rate-limited one); stock_basic once per status; the
    // calendar to its published end in two pages (121 days, 100 a page)
    expect(result.calls).toMatchObject({ daily: 4, adj_factor: 5, index_daily: 4, trade_cal: 2, stock_basic: 3 })
    // concept boards: the list once, members one board a call, the boards' bars by day
    expect(result.calls).toMatchObject({ ths_index: 1, ths_member: 2, ths_daily: 4 })
    // financial reports: the first day of an empty store by the last 8 report periods, then one announcement day a call
    expect(result.calls.fina_indicator_vip).toBe(8 + 3)
    expect(expected.theme_edges).toHaveLength(4)
    expect(expected.concept_bars).toHaveLength(8)
    expect(standIn.calls.every((c) => c.token === TOKEN)).toBe(true)
    expect(captured.text()).not.toContain(TOKEN)
    expect(captured.text()).toContain('tushare adj_factor: rate limit, waiting 60 s')
  })

  it('is idempotent: the same days again change nothing', async () => {
    const { sync } = harness(synced, standIn, captured.log)
    await sync({ from: FROM, to: TO })
    expect(await snapshot(synced)).toEqual(expected)
  })

  it('a kill mid-day leaves that day absent, and a rerun without --from completes it', async () => {
    const killed = await createTestDatabase()
    try {
      const controller = new AbortController()
      standIn.onCall = (call) => {
        if (call.api === 'daily_basic' && call.params.trade_date === '20240117') controller.abort(new Error('killed'))
      }
      const { sync } = harness(killed, standIn, captured.log)
      await expect(sync({ from: FROM, to: TO }, controller.signal)).rejects.toThrow()
      standIn.onCall = () => undefined
      expect(await rows(killed, 'select distinct trade_date from daily_bars order by 1')).toEqual([
        { trade_date: '2024-01-15' },
        { trade_date: '2024-01-16' },
      ])
      const rerun = await sync({})
      expect(rerun.days).toEqual(['2024-01-17', '2024-01-18'])
      expect(await snapshot(killed)).toEqual(expected)
    } finally {
      standIn.onCall = () => undefined
      await killed.drop()
    }
  })

  it('skips an interface the token may not use, with a warning naming what the build lacks', async () => {
    const partial = await createTestDatabase()
    const log = captureLog('debug')
    try {
      standIn.fail.set('daily_basic', { code: 40203, msg: NO_PERMISSION_MSG })
      standIn.fail.set('fina_indicator_vip', { code: 40203, msg: NO_PERMISSION_MSG })
      const { sync } = harness(partial, standIn, log.log)
      const result = await sync({ from: FROM, to: TO })
      expect(result.days).toHaveLength(4)
      expect(result.skipped).toEqual([
        'daily_basic: the build lacks turnover and valuation (pe_ttm, pb, market value): the valuation and liquidity signals',
        'fina_indicator_vip: the build lacks financial reports: the quality signals (quality_roe, cash_conversion) and the valuation from BVPS and ROE (upside) lose their reports',
      ])
      expect(result.calls).toMatchObject({ daily_basic: 1, fina_indicator_vip: 1 })
      expect(await rows(partial, 'select count(*)::int as n from daily_basics')).toEqual([{ n: 0 }])
      expect(await rows(partial, 'select count(*)::int as n from daily_bars')).toEqual([
        { n: (expected.daily_bars as unknown[]).length },
      ])
      const warning = log.lines.find((l) => String(l.msg).startsWith('tushare daily_basic: no permission'))
      expect(warning).toMatchObject({ level: 40, api: 'daily_basic' })
      expect(log.text()).not.toContain(TOKEN)
    } finally {
      standIn.fail.delete('daily_basic')
      standIn.fail.delete('fina_indicator_vip')
      await partial.drop()
    }
  })

  it('says a refused token in one line and writes nothing', async () => {
    const empty = await createTestDatabase()
    try {
      standIn.fail.set('trade_cal', { code: 40101, msg: '您的token不对，请确认。', times: 1 })
      const { sync } = harness(empty, standIn, captured.log)
      await expect(sync({ from: FROM, to: TO })).rejects.toThrow(
        'tushare trade_cal: the token was refused (您的token不对，请确认。); check TUSHARE_TOKEN',
      )
      expect(await rows(empty, 'select count(*)::int as n from daily_bars')).toEqual([{ n: 0 }])
    } finally {
      await empty.drop()
    }
  })
  it('brings each financial report version on the first synced day on or after its announcement', async () => {
    const store = await createTestDatabase()
    const reference = await createTestDatabase()
    const cuts: string[] = []
    try {
      const importCut = async (to: string) => {
        const dir = await bundleOfRange(fixture, { from: '2024-04-18', to })
        cuts.push(dir)
        await importDirectory(
          { imports: createImportStore(reference.pool), log: captured.log, progress: silentProgress },
          { dir, format: 'tushare' },
          new AbortController().signal,
        )
        return snapshot(reference)
      }
      // through Monday the 22nd: 000001.SZ's Q1 report announced on Saturday the 20th is in, the restatement not
      const { sync } = harness(store, standIn, captured.log, '2024-04-22')
      const first = await sync({ from: '2024-04-18' })
      expect(first.days).toEqual(['2024-04-18', '2024-04-19', '2024-04-22'])
      // the 18th by report period (empty store), the 19th by its date, the 22nd by the 20th, 21st and 22nd
      expect(first.calls.fina_indicator_vip).toBe(8 + 1 + 3)
      expect(await snapshot(store)).toEqual(await importCut('20240422'))
      const before = await rows(store, FINANCIALS)
      expect(before).toContainEqual({
        code: '000001.SZ',
        end_date: '2024-03-31',
        ann_date: '2024-04-20',
        roe: 0.032 * 4,
      })
      expect(before.filter((r) => r.code === '600519.SH')).toEqual([
        { code: '600519.SH', end_date: '2023-12-31', ann_date: '2024-04-03', roe: 0.3419 },
      ])
      // the rest of the week: the restatement of the 24th joins the first version, it does not replace it
      const rest = await harness(store, standIn, captured.log, '2024-04-25').sync({})
      expect(rest.days).toEqual(['2024-04-23', '2024-04-24', '2024-04-25'])
      // a run that continues the store asks one call per calendar day since its last bar, and again each calendar
      // day from the 5th trading day before through its last bar (16th..22nd: reports tushare loaded late)
      expect(rest.calls.fina_indicator_vip).toBe(3 + 7)
      expect(await snapshot(store)).toEqual(await importCut('20240425'))
      expect((await rows(store, FINANCIALS)).filter((r) => r.code === '600519.SH')).toEqual([
        { code: '600519.SH', end_date: '2023-12-31', ann_date: '2024-04-03', roe: 0.3419 },
        { code: '600519.SH', end_date: '2023-12-31', ann_date: '2024-04-24', roe: 0.343 },
        { code: '600519.SH', end_date: '2024-03-31', ann_date: '2024-04-25', roe: 0.0892 * 4 },
      ])
    } finally {
      await Promise.all([store.drop(), reference.drop()])
      for (const dir of cuts) await rm(dir, { recursive: true, force: true })
    }
  })
})
