import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
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
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'
import {
  NO_PERMISSION_MSG,
  RATE_LIMIT_MSG,
  startTushareStandIn,
  type TushareStandIn,
} from '../support/tushare-stand-in.js'

const BUNDLE = fileURLToPath(new URL('../data/tushare/bundle/', import.meta.url))
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
}

async function snapshot(t: TestDatabase): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {}
  for (const [table, query] of Object.entries(TABLES)) out[table] = await rows(t, query)
  return out
}

/** The same data as a bundle: the golden bundle's files cut to FROM..TO (reference files whole). */
async function bundleOfRange(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-sync-bundle-'))
  const [from, to] = [FROM.replaceAll('-', ''), TO.replaceAll('-', '')]
  const daily = [
    'daily',
    'adj_factor',
    'daily_basic',
    'stk_limit',
    'suspend_d',
    'index_daily',
    'ths_daily',
    'trade_cal',
  ]
  for (const file of daily) {
    const [header, ...lines] = (await readFile(path.join(BUNDLE, `${file}.csv`), 'utf8')).trim().split('\n')
    const column = header!.split(',').indexOf(file === 'trade_cal' ? 'cal_date' : 'trade_date')
    const kept = lines.filter((l) => {
      const d = l.split(',')[column]!
      return d >= from && d <= to
    })
    await writeFile(path.join(dir, `${file}.csv`), `${[header, ...kept].join('\n')}\n`)
  }
  for (const file of ['stock_basic', 'namechange', 'ths_index', 'ths_member']) {
    await writeFile(path.join(dir, `${file}.csv`), await readFile(path.join(BUNDLE, `${file}.csv`)))
  }
  return dir
}

interface Harness {
  readonly waits: number[]
  sync(args: SyncArgs, signal?: AbortSignal): ReturnType<typeof runSync>
}

function harness(t: TestDatabase, standIn: TushareStandIn, log: Logger): Harness {
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
    pageSize: 100,
  })
  return {
    waits,
    sync: (args, signal = new AbortController().signal) =>
      runSync(
        {
          client,
          importBundle: (dir, s) =>
            importDirectory(
              { imports: createImportStore(t.pool), log, progress: silentProgress },
              { dir, format: 'tushare' },
              s,
            ),
          latestBarDate: async () => {
            const [row] = await rows(t, 'select max(trade_date)::text as d from daily_bars')
            return (row?.d as string | null) ?? undefined
          },
          today: () => TO,
          log,
          progress: silentProgress,
          benchmark: '000300.SH',
        },
        args,
        signal,
      ),
  }
}

describe('stockplan sync from a tushare stand-in', () => {
  let standIn: TushareStandIn
  let synced: TestDatabase
  let imported: TestDatabase
  let bundle: string
  const captured = captureLog('debug')
  let expected: Record<string, unknown[]>

  beforeAll(async () => {
    standIn = await startTushareStandIn(BUNDLE)
    ;[synced, imported] = await Promise.all([createTestDatabase(), createTestDatabase()])
    bundle = await bundleOfRange()
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
  })

  it('syncs several days into what the same data imported as a bundle gives, waiting out a rate limit', async () => {
    standIn.fail.set('adj_factor', { code: 40203, msg: RATE_LIMIT_MSG, times: 1, when: { trade_date: '20240116' } })
    const { sync, waits } = harness(synced, standIn, captured.log)
    const result = await sync({ from: FROM, to: TO })
    expect(result.days).toEqual(['2024-01-15', '2024-01-16', '2024-01-17', '2024-01-18'])
    expect(waits).toEqual([60_000])
    expect(await snapshot(synced)).toEqual(expected)
    expect((expected.daily_bars as unknown[]).length).toBeGreaterThan(30)
    // one call per day per daily interface (one more for the rate-limited one); stock_basic paged (12 rows, 100 a page)
    expect(result.calls).toMatchObject({ daily: 4, adj_factor: 5, index_daily: 4, trade_cal: 1, stock_basic: 3 })
    // concept boards: the list once, members one board a call, the boards' bars by day
    expect(result.calls).toMatchObject({ ths_index: 1, ths_member: 2, ths_daily: 4 })
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
      const { sync } = harness(partial, standIn, log.log)
      const result = await sync({ from: FROM, to: TO })
      expect(result.days).toHaveLength(4)
      expect(result.skipped).toEqual([
        'daily_basic: the build lacks turnover and valuation (pe_ttm, pb, market value): the valuation and liquidity signals',
      ])
      expect(result.calls.daily_basic).toBe(1)
      expect(await rows(partial, 'select count(*)::int as n from daily_basics')).toEqual([{ n: 0 }])
      expect(await rows(partial, 'select count(*)::int as n from daily_bars')).toEqual([
        { n: (expected.daily_bars as unknown[]).length },
      ])
      const warning = log.lines.find((l) => String(l.msg).startsWith('tushare daily_basic: no permission'))
      expect(warning).toMatchObject({ level: 40, api: 'daily_basic' })
      expect(log.text()).not.toContain(TOKEN)
    } finally {
      standIn.fail.delete('daily_basic')
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
})
