import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOperationalSource, createServices } from '../../src/compose.js'
import { buildApp } from '../../src/http/app.js'
import { runSync } from '../../src/jobs/sync.job.js'
import { createLogger } from '../../src/logger.js'
import { createMetrics } from '../../src/services/metrics.js'
import { testConfig } from '../support/config.js'
import { rows } from '../support/queries.js'
import { standInClient, syncDeps } from '../support/sync-store.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'
import { startTushareStandIn, type TushareStandIn } from '../support/tushare-stand-in.js'

const GOLDEN = fileURLToPath(new URL('../data/tushare/bundle/', import.meta.url))
const silent = createLogger({ logLevel: 'silent' })
/** A moment in Shanghai (UTC+8) as ms since the epoch. */
const cst = (date: string, time: string): number => Date.parse(`${date}T${time}:00+08:00`)

/** The golden calendar's open days after `day` (it runs to 2024-04-30): what tushare has published ahead. */
async function publishedSessionsAfter(day: string): Promise<number> {
  const [header, ...lines] = (await readFile(path.join(GOLDEN, 'trade_cal.csv'), 'utf8')).trim().split('\n')
  const [date, open] = ['cal_date', 'is_open'].map((c) => header!.split(',').indexOf(c))
  return lines.map((l) => l.split(',')).filter((r) => r[date!]! > day.replaceAll('-', '') && r[open!] === '1').length
}

/**
 * The Spring Festival week of 2024 (closed 2024-02-09 to 02-16, reopening Monday 02-19), synced night by night from
 * the tushare stand-in: the calendar the store keeps, and what /metrics says of it.
 */
describe('the sync keeps the trading calendar ahead through a holiday week', () => {
  let standIn: TushareStandIn
  let t: TestDatabase

  beforeAll(async () => {
    standIn = await startTushareStandIn(GOLDEN)
    t = await createTestDatabase()
  })
  afterAll(async () => {
    await standIn.close()
    await t.drop()
  })

  const sync = (today: string, from?: string) => {
    const client = standInClient(standIn.url, 'tok', silent)
    return runSync(syncDeps(t, client, silent, today), { from }, new AbortController().signal)
  }

  /** The plan-due gauges of the real app's /metrics over the store, at `nowMs`. */
  const gauges = async (nowMs: number) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-sync-calendar-'))
    const services = createServices(testConfig({ PLAN_DATA_DIR: dir }), silent, t)
    const metrics = createMetrics({ defaults: false })
    metrics.setOperationalSource(createOperationalSource(services, () => nowMs))
    const app = await buildApp({ ...services, metrics })
    try {
      const text = (await app.inject('/metrics')).body
      const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1])
      const date = (name: string) => {
        const seconds = value(name)
        return Number.isNaN(seconds) ? 'unknown' : new Date(seconds * 1000).toISOString().slice(0, 10)
      }
      return {
        futureSessions: value('stockplan_trading_calendar_future_sessions'),
        expected: date('stockplan_plan_expected_date_timestamp_seconds'),
        next: date('stockplan_plan_next_date_timestamp_seconds'),
      }
    } finally {
      await app.close()
      await services.close()
      await rm(dir, { recursive: true, force: true })
    }
  }

  it('imports the published calendar with the last session before the holiday, and again on a holiday night', async () => {
    const before = await sync('2024-02-08', '2024-02-05')
    expect(before.days).toEqual(['2024-02-05', '2024-02-06', '2024-02-07', '2024-02-08'])
    const [calendar] = await rows(
      t,
      `select min(cal_date)::text as first, max(cal_date)::text as last from trading_calendar`,
    )
    expect(calendar).toEqual({ first: '2024-02-05', last: '2024-04-30' })
    // as a store synced before this change was left: its calendar cut at the last synced day
    await rows(t, `delete from trading_calendar where cal_date > '2024-02-08'`)
    expect(await gauges(cst('2024-02-13', '09:00'))).toEqual({
      futureSessions: 0,
      expected: 'unknown',
      next: 'unknown',
    })

    // Monday 2024-02-12, a holiday night: no trading day to sync, the calendar comes all the same
    const holiday = await sync('2024-02-12')
    expect(holiday.days).toEqual([])
    expect(
      await rows(
        t,
        `select cal_date::text as d, is_open from trading_calendar where cal_date between '2024-02-08' and '2024-02-19' order by 1`,
      ),
    ).toEqual([
      { d: '2024-02-08', is_open: true },
      ...['09', '10', '11', '12', '13', '14', '15', '16', '17', '18'].map((d) => ({
        d: `2024-02-${d}`,
        is_open: false,
      })),
      { d: '2024-02-19', is_open: true },
    ])
    const [{ last }] = (await rows(t, `select max(cal_date)::text as last from trading_calendar`)) as [{ last: string }]
    expect(last).toBe('2024-04-30')

    // Tuesday 09:00, mid-holiday: the plan due is still Wednesday's (Thursday the 8th, the last session, needed it),
    // Thursday's is the next one, and /metrics counts the sessions the calendar knows ahead
    const midHoliday = await gauges(cst('2024-02-13', '09:00'))
    expect(midHoliday).toEqual({
      futureSessions: await publishedSessionsAfter('2024-02-13'),
      expected: '2024-02-07',
      next: '2024-02-08',
    })
    expect(midHoliday.futureSessions).toBeGreaterThanOrEqual(50)
    // the reopening morning at 08:45 wants Thursday's plan
    expect((await gauges(cst('2024-02-19', '08:45'))).expected).toBe('2024-02-08')
  })
})
